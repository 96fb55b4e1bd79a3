// The platforms a release ships, each with Bun's compile target and the artifact's name.

export type ReleaseTarget = {
  /** The name a user and `--targets` use: `<os>-<arch>`. */
  name: 'linux-x64' | 'linux-arm64' | 'darwin-x64' | 'darwin-arm64' | 'windows-x64'
  os: 'linux' | 'darwin' | 'windows'
  arch: 'x64' | 'arm64'
  /** `bun build --compile --target=` value; Bun fetches its runtime from the npm registry (@oven/bun-*). */
  bunTarget: string
}

export const releaseTargets: readonly ReleaseTarget[] = [
  { name: 'linux-x64', os: 'linux', arch: 'x64', bunTarget: 'bun-linux-x64' },
  { name: 'linux-arm64', os: 'linux', arch: 'arm64', bunTarget: 'bun-linux-arm64' },
  { name: 'darwin-x64', os: 'darwin', arch: 'x64', bunTarget: 'bun-darwin-x64' },
  { name: 'darwin-arm64', os: 'darwin', arch: 'arm64', bunTarget: 'bun-darwin-arm64' },
  { name: 'windows-x64', os: 'windows', arch: 'x64', bunTarget: 'bun-windows-x64' },
]

/**
 * The artifact's file name: `order-relay-<version>-<os>-<arch>`, `.exe` on Windows.
 *
 * @example
 * artifactName('0.1.0', releaseTargets[4]) // 'order-relay-0.1.0-windows-x64.exe'
 */
export function artifactName(version: string, target: ReleaseTarget): string {
  return `order-relay-${version}-${target.os}-${target.arch}${target.os === 'windows' ? '.exe' : ''}`
}

/**
 * The targets named in a comma-separated list (all of them when the list is absent).
 *
 * @throws Error naming the unknown target and the known ones
 * @example
 * selectTargets('linux-x64,windows-x64').map((t) => t.name) // ['linux-x64', 'windows-x64']
 */
export function selectTargets(list: string | undefined): ReleaseTarget[] {
  if (list === undefined) return [...releaseTargets]
  return list.split(',').map((name) => {
    const target = releaseTargets.find((t) => t.name === name.trim())
    if (!target) throw new Error(`unknown target ${JSON.stringify(name)}; known: ${releaseTargets.map((t) => t.name).join(', ')}`)
    return target
  })
}
