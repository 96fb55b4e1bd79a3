// What a compiled executable says about itself in `--version` (src/cli/version.ts):
// the commit, whether the tree was dirty, the build time and the Bun that compiled it.

export type BuildMetadata = { commit: string; dirty: boolean; builtAt: string; bunVersion: string }

function git(args: string[], cwd: string): string | undefined {
  const result = Bun.spawnSync(['git', ...args], { cwd, stdout: 'pipe', stderr: 'pipe' })
  return result.exitCode === 0 ? result.stdout.toString().trim() : undefined
}

/**
 * The build's metadata, read from the git checkout at `cwd`. The build time is
 * SOURCE_DATE_EPOCH when set (reproducible builds), else now; outside a git checkout
 * the commit reads `unknown`.
 *
 * @example
 * const metadata = readBuildMetadata(process.cwd()) // { commit: '5a6e…', dirty: false, builtAt: '2026-…Z', bunVersion: '1.4.5' }
 */
export function readBuildMetadata(cwd: string, env: Record<string, string | undefined> = process.env): BuildMetadata {
  const epoch = env.SOURCE_DATE_EPOCH
  const builtAt = (epoch && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z')
  const commit = git(['rev-parse', 'HEAD'], cwd)
  return { commit: commit ?? 'unknown', dirty: (git(['status', '--porcelain'], cwd) ?? '') !== '', builtAt, bunVersion: Bun.version }
}

/**
 * `bun build --define` arguments carrying the metadata into src/cli/version.ts.
 *
 * @example
 * defineArgs({ commit: 'abc', dirty: false, builtAt: '2026-01-01T00:00:00Z', bunVersion: '1.4.5' })
 * // ['--define', 'ORDER_RELAY_BUILD_COMMIT="abc"', '--define', 'ORDER_RELAY_BUILD_DIRTY="false"', …]
 */
export function defineArgs(metadata: BuildMetadata): string[] {
  const values = {
    ORDER_RELAY_BUILD_COMMIT: metadata.commit,
    ORDER_RELAY_BUILD_DIRTY: String(metadata.dirty),
    ORDER_RELAY_BUILD_DATE: metadata.builtAt,
    ORDER_RELAY_BUILD_BUN: metadata.bunVersion,
  }
  return Object.entries(values).flatMap(([name, value]) => ['--define', `${name}=${JSON.stringify(value)}`])
}
