import { accessSync, constants, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Manifest } from '../../chain/index.ts'
import { UsageError } from '../command.ts'

/** Writes a manifest as pretty JSON, creating its folder. */
export function writeManifest(path: string, manifest: Manifest) {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`)
}

const reasons: Record<string, string> = {
  EEXIST: 'part of the path is a file, not a folder',
  ENOTDIR: 'part of the path is a file, not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
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
    const code = (error as NodeJS.ErrnoException).code ?? ''
    const why = reasons[code] ?? (code || 'not writable')
    throw new UsageError(`cannot write the manifest to ${path} (${why}): pass --manifest with a writable path`)
  }
}
