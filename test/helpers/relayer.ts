import { afterAll, beforeAll } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { type Devnet, devnetAccounts, manifestTokensVariable, startDevnet } from '../../src/devnet/index.ts'
import { createRelayer, readRelayerConfig, type RelayerConfigOverrides } from '../../src/relayer/index.ts'
import type { GasSigner } from '../../src/signers/index.ts'

export type TestRelayer = Awaited<ReturnType<typeof startTestRelayer>>

/**
 * A real relayer over HTTP on 127.0.0.1 (free port) against the devnet, with its
 * log lines captured. `env` adds RELAYER_* variables; `overrides` wins over both.
 * Its journal (RELAYER_DB) is a throw-away file, removed at `stop`, unless `env`
 * names one (a test that restarts a relayer on the same journal). `gasSigner` signs
 * instead of the devnet's relayer key (RELAYER_PK).
 */
export async function startTestRelayer(
  devnet: Devnet,
  options: { env?: Record<string, string>; overrides?: RelayerConfigOverrides; gasSigner?: GasSigner } = {},
) {
  const logger = createMemoryLogger()
  const scratch = options.env?.RELAYER_DB ? undefined : mkdtempSync(join(tmpdir(), 'order-relay-journal-'))
  const config = readRelayerConfig(
    {
      RELAYER_PK: devnetAccounts.relayer.privateKey,
      RELAYER_CHAIN_ID: String(devnet.chainId),
      RELAYER_RPC_URL: devnet.rpcUrl,
      RELAYER_BROKER: devnet.manifest.contracts.broker,
      // The devnet's pay token, priced as its manifest prices it.
      ...manifestTokensVariable(devnet.manifest),
      RELAYER_RECEIPT_POLL_MS: '20',
      // anvil mines a block per tx: a tx is final in its own block (a reorg test sets more).
      RELAYER_CONFIRMATIONS: '1',
      // Well inside a test's timeout, so a receipt that never comes is an answer
      // (502 UPSTREAM_RPC naming the tx) the test can show, not a test timeout.
      RELAYER_RECEIPT_TIMEOUT_MS: '20000',
      ...(scratch ? { RELAYER_DB: join(scratch, 'journal.sqlite') } : {}),
      ...options.env,
    },
    { host: '127.0.0.1', port: 0, deployedAt: BigInt(devnet.manifest.deployedAt), ...options.overrides },
  )
  const relayer = createRelayer(config, { logger, version: 'test', ...(options.gasSigner ? { gasSigner: options.gasSigner } : {}) })
  const server = await relayer.serve()
  return {
    url: server.url,
    relayer,
    logger,
    config,
    async stop() {
      await server.stop()
      if (scratch) rmSync(scratch, { recursive: true, force: true })
    },
    /** POST /broker with a JSON body (or raw text) and return status + parsed body. */
    async post(body: unknown, init: { raw?: string; headers?: Record<string, string> } = {}) {
      const response = await fetch(`${server.url}/broker`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...init.headers },
        body: init.raw ?? JSON.stringify(body),
      })
      const text = await response.text()
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      return { status: response.status, body: json as Record<string, unknown>, text, headers: response.headers }
    },
  }
}

/**
 * One devnet and one relayer over it for the whole test file, handed to `use` once
 * both are up and stopped after the file's last test.
 */
export function useDevnetWithRelayer(use: (devnet: Devnet, relayer: TestRelayer) => void, options: { env?: Record<string, string> } = {}) {
  let devnet: Devnet | undefined
  let relayer: TestRelayer | undefined
  beforeAll(async () => {
    devnet = await startDevnet()
    relayer = await startTestRelayer(devnet, options)
    use(devnet, relayer)
  }, 60_000)
  afterAll(async () => {
    await relayer?.stop()
    await devnet?.stop()
  }, 30_000)
}
