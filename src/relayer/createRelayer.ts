import { createPublicClient, http, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { chainFor } from '../chain/index.ts'
import { keccakReady } from '../wire/index.ts'
import { listenUrl, type Logger } from '../shared/index.ts'
import { checkRpcChain } from './checkRpcChain.ts'
import { type RelayerConfig, takePrivateKey } from './config.ts'
import { createChainClock } from './chainClock.ts'
import type { RelayerContext } from './context.ts'
import { createEdge, describeEdge } from './edge/index.ts'
import { createRelayerApp } from './http/app.ts'
import { maxServerBodyBytes } from './http/readJsonBody.ts'
import { createGasLimitCache, createSubmitter } from './submitter/index.ts'

/** How long answers may take to reach their clients once every order is finished. */
const drainMarginMs = 10_000

export type RelayerDependencies = {
  logger: Logger
  version: string
  /** Override the RPC client (tests). */
  client?: PublicClient
}

/**
 * Builds a relayer from its configuration: clients, the gas-key submitter, the
 * pipeline context and the HTTP app (with the hardened edge when enabled). Nothing
 * listens until `serve` is called.
 *
 * @example
 * const relayer = createRelayer(readRelayerConfig(process.env), { logger, version })
 * const server = await relayer.serve()
 */
export function createRelayer(config: RelayerConfig, dependencies: RelayerDependencies) {
  const { logger } = dependencies
  const client =
    dependencies.client ??
    (createPublicClient({
      chain: chainFor(config.chainId, config.rpcUrl),
      transport: http(config.rpcUrl, { retryCount: 1, timeout: 15_000 }),
    }) as PublicClient)
  const account = privateKeyToAccount(takePrivateKey(config))
  const submitter = createSubmitter({
    client,
    account,
    chainId: config.chainId,
    logger,
    receiptTimeoutMs: config.receiptTimeoutMs,
    receiptPollMs: config.receiptPollMs,
  })
  const context: RelayerContext = {
    config,
    client,
    submitter,
    gasLimits: createGasLimitCache(client, { ttlMs: 10 * 60_000, pad: (gas) => (gas * 13n) / 10n + 25_000n }),
    clock: createChainClock(client, { refreshMs: 2_000, logger }),
    logger,
    inflight: new Map(),
    settled: new Map(),
    unconfirmed: new Map(),
  }

  const running = new Set<Promise<unknown>>()
  const track = <T>(work: Promise<T>): Promise<T> => {
    running.add(work)
    work.then(
      () => running.delete(work),
      () => running.delete(work),
    )
    return work
  }
  const edge = createEdge(config.edge, { client, address: account.address, logger })
  const app = createRelayerApp(context, { version: dependencies.version, edge: edge.middleware, track, bodyTimeoutMs: config.bodyTimeoutMs })

  return {
    app,
    context,
    address: account.address,
    /** Starts background work and listens; resolves once the port is bound. */
    async serve() {
      await checkRpcChain(client, config.chainId, logger)
      // Every request hashes its order: have the fast Keccak loaded before the first one.
      await keccakReady
      submitter.start()
      context.clock.start()
      edge.start()
      const server = Bun.serve({ hostname: config.host, port: config.port, fetch: app.fetch, idleTimeout: 120, maxRequestBodySize: maxServerBodyBytes })
      const url = listenUrl(config.host, server.port as number)
      logger.info(`relayer ${account.address} on chain ${config.chainId}, broker ${config.broker}, listening on ${url}`)
      for (const line of describeEdge(config.edge)) logger.info(line)
      let stopped: Promise<void> | undefined
      return {
        url,
        port: server.port as number,
        /**
         * Stop accepting, finish every order already in the pipeline and deliver its
         * answer, then release everything. A connection still open 10 s after the
         * last order finished (a client not reading its answer) is cut.
         */
        stop() {
          stopped ??= (async () => {
            // Resolves once every connection is closed: idle ones at once, the others
            // when their response has been written (not merely computed).
            const closed = server.stop(false)
            // Requests whose headers arrive while draining join the set: wait until it is empty.
            while (running.size > 0) await Promise.allSettled([...running])
            let limit: ReturnType<typeof setTimeout> | undefined
            await Promise.race([closed, new Promise((resolve) => (limit = setTimeout(resolve, drainMarginMs)))])
            clearTimeout(limit)
            submitter.stop()
            context.clock.stop()
            edge.stop()
            await server.stop(true)
          })()
          return stopped
        },
      }
    },
  }
}

export type Relayer = ReturnType<typeof createRelayer>
export type RelayerServer = Awaited<ReturnType<Relayer['serve']>>
