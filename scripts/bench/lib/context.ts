/** What every benchmark gets from `scripts/bench/index.ts`. */
export type BenchContext = {
  /** The compiled executable (built once per `bun run bench`). */
  exe: string
  /** The baselines' server (scripts/bench/servers/baseline.ts), compiled the same way. */
  baselineExe: string
  /** The least a relayer does per order (scripts/bench/servers/leastRelayer.ts), compiled like the relayer; its settlement runs give an information row. */
  leastRelayerExe: string
  /** A scratch directory, removed at the end. */
  dir: string
  /** Runs per side (medians are taken over them). */
  runs: number
  /** `--quick`: fewer runs and shorter load phases. */
  quick: boolean
  /** Extra RELAYER_* variables for the relayer processes (`--relayer-env KEY=VALUE`), to try a setting. */
  relayerEnv: Record<string, string>
  /** `--count-rpc`: settlement runs talk to anvil through a counting proxy (lib/rpcCounter.ts) and report calls per order; throughput from such a run is not a measurement. */
  countRpc?: boolean
  /** Progress lines (stderr), kept out of the table. */
  log: (line: string) => void
}

/** Environment for a child process: PATH only, plus what it needs. */
export const childEnv = (extra: Record<string, string>): Record<string, string> => ({ PATH: process.env.PATH ?? '', ...extra })

/**
 * A context for a tool or a test that makes single runs outside `bun run bench`: one run,
 * quick, no executables unless given, progress lines dropped unless `log` is given.
 */
export const oneOffContext = (dir: string, extra: Partial<BenchContext> = {}): BenchContext => ({
  exe: '',
  baselineExe: '',
  leastRelayerExe: '',
  dir,
  runs: 1,
  quick: true,
  relayerEnv: {},
  log: () => {},
  ...extra,
})
