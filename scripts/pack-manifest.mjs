// The package.json a tarball carries (npm pack, npm publish): without `prepare`, `prepack` and
// `postpack`, whose files (scripts/, the TypeScript sources, the dev dependencies) the package
// does not ship, so an install of the tarball lists no script to review. The checkout keeps
// them: `npm install` there, and `npm install <path to the checkout>`, build dist/ on `prepare`.
//
//   node scripts/pack-manifest.mjs strip     prepack: keep package.json aside under dist/, write the packed one
//   node scripts/pack-manifest.mjs restore   postpack: put the checkout's package.json back
//
// `strip` also makes dist/, where .npmrc's pack-destination puts the tarball.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const manifest = join(root, 'package.json')
const kept = join(root, 'dist', 'package.json.checkout')
const step = process.argv[2]

if (step === 'strip') {
  mkdirSync(join(root, 'dist'), { recursive: true })
  const text = readFileSync(manifest, 'utf8')
  writeFileSync(kept, text)
  const packed = JSON.parse(text)
  for (const name of ['prepare', 'prepack', 'postpack']) delete packed.scripts[name]
  writeFileSync(manifest, `${JSON.stringify(packed, null, 2)}\n`)
} else if (step === 'restore') {
  if (existsSync(kept)) renameSync(kept, manifest)
} else {
  console.error('pack-manifest: give strip or restore')
  process.exit(2)
}
