import type { Devnet } from '../../src/devnet/index.ts'
import type { IndexerReadiness } from '../../src/wire/index.ts'
import { watchOutput } from '../helpers/processes.ts'

export type IndexerProcess = Awaited<ReturnType<typeof startIndexerProcess>>

/**
 * The real CLI (`order-relay indexer`) in a child process for the devnet's registry
 * set, on a free port, its output collected; `env` adds or overrides INDEXER_*
 * variables. Resolves once it listens. `stop()` kills it (SIGKILL) and is safe to
 * call twice; `signal` sends SIGSTOP/SIGCONT and the like.
 */
export async function startIndexerProcess(devnet: Devnet, env: Record<string, string>) {
  const { registry, inbox, pool, escrow } = devnet.manifest.contracts
  const child = Bun.spawn(['bun', 'src/cli/main.ts', 'indexer', '--port', '0'], {
    env: {
      ...process.env,
      INDEXER_CHAIN_ID: String(devnet.chainId),
      INDEXER_RPC_URL: devnet.rpcUrl,
      INDEXER_ADDRESSES: [registry, inbox, pool, escrow].join(','),
      INDEXER_DEPLOYED_AT: devnet.manifest.deployedAt,
      INDEXER_POLL_MS: '50',
      ...env,
    },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const output = watchOutput(child)
  await output.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/, 30_000)
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output.text)![1]!
  return {
    url,
    child,
    output,
    signal: (signal: 'SIGSTOP' | 'SIGCONT' | 'SIGKILL') => child.kill(signal),
    async ready(): Promise<IndexerReadiness & { status: number }> {
      const response = await fetch(`${url}/ready`)
      return { status: response.status, ...((await response.json()) as IndexerReadiness) }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGCONT')
        child.kill('SIGKILL')
      }
      await child.exited
    },
  }
}
