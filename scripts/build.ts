// Builds the library (dist/lib: `order-relay/client` and `order-relay/wire` as Node
// ESM with declarations, scripts/build-lib.ts), then compiles the CLI into one
// executable, dist/order-relay (or --outfile PATH), for this platform with the same
// command every release artifact uses (scripts/release/compile.ts). The
// contract artifacts are TypeScript modules (src/chain/generated), so they are
// embedded; at run time the binary needs no node_modules (only `devnet` needs an
// anvil executable). `npm run release` builds every platform's executable.
import { $ } from 'bun'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { compile, readBuildMetadata } from './release/index.ts'

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { outfile: { type: 'string' }, 'skip-contracts': { type: 'boolean' }, 'skip-lib': { type: 'boolean' } },
})
const root = resolve(import.meta.dir, '..')
const outfile = resolve(values.outfile ?? 'dist/order-relay')

if (!values['skip-contracts']) await $`bun scripts/build-contracts.ts`
if (!values['skip-lib']) await $`bun scripts/build-lib.ts`
const started = performance.now()
const result = await compile({ root, outfile, metadata: readBuildMetadata(root) })
if (!result.ok) {
  console.error(result.output)
  console.error(`build: bun build --compile failed for ${outfile}`)
  process.exit(1)
}
const { size } = Bun.file(outfile)
console.log(`built ${outfile} (${(size / 1e6).toFixed(1)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`)
