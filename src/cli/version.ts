import packageJson from '../../package.json' with { type: 'json' }

// Set by `bun build --define` when the executable is compiled (scripts/release/compile.ts);
// undeclared when the CLI runs from source, where `typeof` reads them as 'undefined'.
declare const ORDER_RELAY_BUILD_COMMIT: string
declare const ORDER_RELAY_BUILD_DIRTY: string
declare const ORDER_RELAY_BUILD_DATE: string
declare const ORDER_RELAY_BUILD_BUN: string

/** The package version, embedded at build time. */
export const version: string = packageJson.version

/** What a build was made from: absent fields mean the CLI runs from source. */
export type BuildInfo = {
  version: string
  /** The git commit (40 hex digits) the executable was compiled from. */
  commit?: string
  /** True when the working tree had uncommitted changes at build time. */
  dirty?: boolean
  /** ISO 8601 UTC time of the build. */
  builtAt?: string
  /** The Bun version the executable was compiled with (its embedded runtime). */
  bunVersion: string
}

const runningBun = typeof Bun === 'undefined' ? (process.versions.bun ?? 'none') : Bun.version

/** This program's build: compiled metadata when present, else what the running Bun reports. */
export const buildInfo: BuildInfo =
  typeof ORDER_RELAY_BUILD_COMMIT === 'string'
    ? {
        version,
        commit: ORDER_RELAY_BUILD_COMMIT,
        dirty: ORDER_RELAY_BUILD_DIRTY === 'true',
        builtAt: ORDER_RELAY_BUILD_DATE,
        bunVersion: ORDER_RELAY_BUILD_BUN,
      }
    : { version, bunVersion: runningBun }

/**
 * The `--version` text: the bare version on the first line (what scripts read), then the
 * commit, build date and Bun version, one `name: value` line each.
 *
 * @example
 * versionText({ version: '0.1.0', commit: 'ab'.repeat(20), dirty: false, builtAt: '2026-01-02T03:04:05Z', bunVersion: '1.4.5' })
 * // '0.1.0\ncommit: abab…ab\nbuilt:  2026-01-02T03:04:05Z\nbun:    1.4.5'
 */
export function versionText(info: BuildInfo = buildInfo): string {
  if (info.commit === undefined) {
    return [info.version, 'commit: none (run from source, not a compiled build)', 'built:  not built (run from source)', `bun:    ${info.bunVersion} (the running Bun)`].join('\n')
  }
  const dirty = info.dirty ? ' (dirty: built from a tree with uncommitted changes)' : ''
  return [info.version, `commit: ${info.commit}${dirty}`, `built:  ${info.builtAt ?? 'unknown'}`, `bun:    ${info.bunVersion}`].join('\n')
}
