// Builds the library (dist/lib: `order-relay/client` and `order-relay/wire` as Node
// ESM with declarations, scripts/build-lib.ts), then compiles the CLI into one
// executable, dist/order-relay (or --outfile PATH). The
// contract artifacts are TypeScript modules (src/chain/generated), so they are
// embedded; at run time the binary needs no node_modules (only `devnet` needs an
// anvil executable).
import { $ } from 'bun'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { outfile: { type: 'string' }, 'skip-contracts': { type: 'boolean' }, 'skip-lib': { type: 'boolean' } },
})
const outfile = values.outfile ?? 'dist/order-relay'

if (!values['skip-contracts']) await $`bun scripts/build-contracts.ts`
if (!values['skip-lib']) await $`bun scripts/build-lib.ts`
const started = performance.now()
// prool can also start alto (a bundler) via an optional peer dependency we never use.
// --bytecode: the modules are parsed at build time, not at every start (--version 120-140 ms → 50-80 ms).
// The relayer's signer thread is a Worker: its module is a second entry point, embedded at
// relayer/submitter/signerThread.ts under the bundle's root (src/, which both entries share;
// src/relayer/submitter/txSigner.ts starts it by that path).
await $`bun build --compile --minify --sourcemap --bytecode --format=esm --external @pimlico/alto src/cli/main.ts src/relayer/submitter/signerThread.ts --outfile ${outfile}`.quiet()
const { size } = Bun.file(outfile)
console.log(`built ${outfile} (${(size / 1e6).toFixed(1)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`)
