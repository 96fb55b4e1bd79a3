import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Manifest } from '../../chain/index.ts'

/** Writes a manifest as pretty JSON, creating its folder. */
export function writeManifest(path: string, manifest: Manifest) {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`)
}
