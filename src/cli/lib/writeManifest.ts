import { accessSync, constants, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Manifest } from '../../chain/index.ts'
import { UsageError } from '../command.ts'

/** Writes a manifest as pretty JSON, creating its folder. */
export function writeManifest(path: string, manifest: Manifest) {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`)
}

/**
 * Checks, before anything starts or any transaction is sent, that a manifest can be
 * written at `path` (creating its folder): a bad `--manifest` is a usage error (exit 2),
 * not a failure found after a deployment has spent gas.
 */
export function assertManifestWritable(path: string) {
  try {
    mkdirSync(dirname(path), { recursive: true })
    accessSync(existsSync(path) ? path : dirname(path), constants.W_OK)
  } catch (error) {
    throw new UsageError(`cannot write the manifest to ${path} (${(error as NodeJS.ErrnoException).code ?? 'not writable'}): pass --manifest with a writable path`)
  }
}
