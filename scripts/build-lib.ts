// Builds the library half of the package (`order-relay/client`, `order-relay/wire`)
// into dist/lib: ES modules Node runs as they are (explicit `.js` extensions) and
// `.d.ts` declarations, by tsc (tsconfig.lib.json). Run by `npm run build` and by
// `prepack`, so a tarball always carries a fresh build.
import { $ } from 'bun'
import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'

const outDir = join(import.meta.dir, '../dist/lib')
const started = performance.now()
await rm(outDir, { recursive: true, force: true })
// The project's own TypeScript, wherever this is started from.
const tsc = join(import.meta.dir, '../node_modules/.bin/tsc')
await $`${tsc} -p ${join(import.meta.dir, '../tsconfig.lib.json')}`
// tsc rewrites `./x.ts` to `./x.js` in the JavaScript but not in the declarations; a
// consumer's TypeScript (without allowImportingTsExtensions) wants `.js` there too.
let files = 0
for (const entry of await readdir(outDir, { recursive: true })) {
  if (!entry.endsWith('.d.ts')) continue
  const path = join(outDir, entry)
  const text = await Bun.file(path).text()
  await Bun.write(path, text.replace(/(from\s+'\.{1,2}\/[^']+)\.ts'/g, "$1.js'"))
  files++
}
console.log(`built ${outDir} (${files} modules with declarations) in ${((performance.now() - started) / 1000).toFixed(1)} s`)
