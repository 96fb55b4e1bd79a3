// Builds the CLI the npm package ships (`npx order-relay`, `order-relay/testing`'s
// devnet) into dist/cli: main.js (src/cli/main.ts) and signerThread.js (the relayer's
// signer thread, src/relayer/submitter/signerThread.ts, which the relayer starts from
// beside its own module), bundled for Bun with everything they import, so the package
// needs no dependency beyond its own three at run time. bun and anvil are the
// project's optional peers (see package.json), installed beside it.
import { $ } from 'bun'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'

const root = join(import.meta.dir, '..')
const outDir = join(root, 'dist/cli')
const started = performance.now()
await rm(outDir, { recursive: true, force: true })
// prool can also start alto (a bundler) through an optional peer dependency never used here.
for (const [entry, name] of [
  ['src/cli/main.ts', 'main.js'],
  ['src/relayer/submitter/signerThread.ts', 'signerThread.js'],
] as const) {
  await $`bun build ${join(root, entry)} --target=bun --format=esm --minify-syntax --minify-whitespace --external @pimlico/alto --outfile ${join(outDir, name)}`.quiet()
}
const size = (Bun.file(join(outDir, 'main.js')).size + Bun.file(join(outDir, 'signerThread.js')).size) / 1e6
console.log(`built ${outDir} (${size.toFixed(1)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`)
