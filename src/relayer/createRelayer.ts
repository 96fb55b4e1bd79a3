import { createPublicClient, http, type PublicClient } from 'viem'
import { type GasSigner, privateKeySigner } from '../signers/index.ts'
import { chainFor } from '../chain/index.ts'
import { keccakReady } from '../wire/index.ts'
import { errorLine, listenUrl, type Logger, redactUrl } from '../shared/index.ts'
import { checkJournalMatchesChain, checkRpcChain, warnLocalKeyOnRealChain } from './startChecks.ts'
import { type RelayerConfig, takePrivateKey } from './config.ts'
import { learnAdapters } from './learnAdapters.ts'
import { createChainClock } from './chainClock.ts'
import type { RelayerContext } from './context.ts'
import { createEdge, describeEdge } from './edge/index.ts'
import { createRelayerApp } from './http/app.ts'
import { createRequestDrain } from './http/requestDrain.ts'
import { createJournalPruning, createLocalClaims, defaultJournalPath, journalVersion, openJournal } from './journal/index.ts'
import { createEconomics, effectiveGasPrice, moneyNotReady } from './economics/index.ts'
import { describeOutcome, recheckOrder } from './steps/broadcast.ts'
import { orderPipeline } from './pipeline.ts'
import { createSettlementFinder } from './settlementFinder.ts'
import { createPendingSimulator } from './simulation/index.ts'
import { maxServerBodyBytes } from './http/readJsonBody.ts'
import { createGasLimitCache, createKeyGuard, createSubmitter, createTxSigner, signerKindName, txsPerBatch } from './submitter/index.ts'
import { observeTransport } from '../metrics/index.ts'
import { createRelayerOperations } from './operations/index.ts'
import { createReplicas } from './replicas/index.ts'

const readOrUndefined = (read: () => number): number | undefined => {
  try {
    return read()
  } catch {
    return undefined
  }
}

/** How long answers may take to reach their clients once every order is finished. */
const drainMarginMs = 10_000

/**
 * At SIGTERM, open keep-alive connections are still served (each answer then says
 * `Connection: close`) until no request has come for `keepAliveQuietMs` (at most
 * `keepAliveGraceMs`), before the idle ones are closed: a request already on its way
 * on such a connection is answered, not met by a reset (closing a socket with unread
 * bytes resets it).
 */
const keepAliveQuietMs = 100
const keepAliveGraceMs = 1_000

export type RelayerDependencies = {
  logger: Logger
  version: string
  /** Override the RPC client (tests); txs are then sent one request each, unless `broadcastClient` is given too. */
  client?: PublicClient
  /** Override the client that broadcasts a batch of txs as one JSON-RPC batch (tests). */
  broadcastClient?: PublicClient
  /** false: sign in the main thread (tests of that path); default: a signer thread. */
  signerThread?: boolean
  /**
   * The gas key (src/signers: a keystore, a remote signer, KMS); default: RELAYER_PK from
   * `config`. Given, `config` holds no key (one it holds is dropped unread).
   */
  gasSigner?: GasSigner
}

/**
 * Builds a relayer from its configuration: clients, the gas-key submitter, the
 * pipeline context and the HTTP app (with the hardened edge when enabled). Opens
 * the journal and takes its process lock (JournalLockedError when another live
 * process holds it). Nothing listens until `serve` is called.
 *
 * @example
 * const relayer = createRelayer(readRelayerConfig(process.env), { logger, version })
 * const server = await relayer.serve()
 */
export function createRelayer(config: RelayerConfig, dependencies: RelayerDependencies) {
  const { logger } = dependencies
  let gasSigner: GasSigner
  if (dependencies.gasSigner) {
    gasSigner = dependencies.gasSigner
    delete config.privateKey
  } else gasSigner = privateKeySigner(takePrivateKey(config), { kind: 'private-key', description: 'RELAYER_PK' })
  if (config.adapters) learnAdapters(config.adapters)
  const account = { address: gasSigner.address }
  // A local key signs in a thread of its own, which takes the key; a remote signer or KMS
  // is asked for a batch's signatures together, RELAYER_SIGNER_CONCURRENCY at once (txSigner.ts).
  const signer = createTxSigner({
    gasSigner,
    logger,
    ...(dependencies.signerThread === false ? { signerThread: false } : {}),
    concurrency: config.signerConcurrency,
    timeoutMs: config.signerTimeoutMs,
    chainId: config.chainId,
  })
  const operations = createRelayerOperations({
    config,
    address: account.address,
    signer: { kind: gasSigner.kind, description: gasSigner.description },
    version: dependencies.version,
    logger,
    client: () => client,
    inflight: () => context.claims.held,
  })
  const client =
    dependencies.client ??
    (createPublicClient({
      chain: chainFor(config.chainId, config.rpcUrl),
      // eth_sendRawTransaction is sent with retryCount 0 (see submitter/sendRaw.ts).
      transport: observeTransport(http(config.rpcUrl, { retryCount: 1, timeout: 15_000 }), operations.rpc),
    }) as PublicClient)
  // The same RPC, with the requests made together sent as one JSON-RPC batch: a batch of
  // signed txs reaches the node in one request (submitter/batchSender.ts).
  const broadcastClient = dependencies.client
    ? dependencies.broadcastClient
    : (createPublicClient({
        chain: chainFor(config.chainId, config.rpcUrl),
        transport: observeTransport(http(config.rpcUrl, { batch: { batchSize: txsPerBatch }, retryCount: 0, timeout: 15_000 }), operations.rpc),
      }) as PublicClient)
  // The receipt watcher's looks (the head and the next block's tx hashes, then its logs), batched on their own.
  const watchClient = dependencies.client
    ? undefined
    : (createPublicClient({
        chain: chainFor(config.chainId, config.rpcUrl),
        transport: observeTransport(http(config.rpcUrl, { batch: { batchSize: 16 }, retryCount: 1, timeout: 15_000 }), operations.rpc),
      }) as PublicClient)
  const journalPath = config.journalPath ?? defaultJournalPath(config.chainId, account.address)
  if (journalPath === ':memory:') {
    logger.warn('RELAYER_DB=:memory: the journal is not kept on disk; after a restart this relayer cannot see the transactions it left pending (their orders could be sent again)')
  }
  const journal = openJournal(journalPath, { chainId: config.chainId, address: account.address })
  if (journal.upgraded.length > 0) {
    logger.info(`RELAYER_DB ${journalPath}: upgraded to journal version ${journalVersion} (${journal.upgraded.join(', ')}); a build of order-relay that reads only a lower journal version refuses it`)
  }
  operations.useJournal({
    async check() {
      try {
        journal.pendingCount()
        return undefined
      } catch (error) {
        return `the journal ${journalPath} cannot be read (${(error as Error).message}); check the disk and restart the relayer`
      }
    },
    // A journal that cannot be read leaves the gauges without a value; /metrics still answers.
    pendingTransactions: () => readOrUndefined(() => journal.pendingCount()),
    // Nonces handed out that the chain has not used yet (by the journal's account).
    nonceGap: () =>
      readOrUndefined(() => {
        const next = journal.nextNonce()
        return next === undefined ? 0 : next - ((journal.lastMinedNonce() ?? -1) + 1)
      }),
  })
  // What the key spends and what orders must pay for it; the hour's spending follows the journal.
  const economics = createEconomics({ config: config.economics, client, chainId: config.chainId, logger })
  journal.observe(
    {
      reserved: economics.ledger.reserve,
      spent: economics.ledger.spent,
      released: economics.ledger.release,
      reopened: (slot) => economics.ledger.reopened(slot.nonce, slot.spentWei, slot.minedAt, slot.worstWei, slot.unpriced),
    },
    Date.now() - economics.ledger.windowMs,
  )
  journal.observe({ spent: (_nonce, wei) => economics.books.spent(wei), earned: economics.books.earned, reopened: economics.books.reopened }, 0)
  // Relayer replicas: claims, outcomes and rate limits shared through Redis, failing closed (docs/scaling.md).
  const replicas = config.redisUrl
    ? createReplicas(config.redisUrl, {
        logger,
        health: operations.redis,
        stateHooks: operations.sharedState,
        prefix: `order-relay:${config.chainId}:${config.broker.toLowerCase()}`,
        journal,
        restoreWindowMs: config.redisRestoreMs,
      })
    : undefined
  if (replicas) operations.useReplicas(replicas)
  const keyGuard = createKeyGuard({ logger, quietMs: config.keyConflictQuietMs })
  operations.readiness.add({ name: 'key', check: async () => keyGuard.conflict() })
  // A remote signer or KMS that fails or times out: no new order until it signs again (submitter/signerHealth.ts).
  if (signer.health) operations.useSignerHealth(signer.health.down)
  // Steps the submitter calls back into need the context, which needs the submitter.
  let context!: RelayerContext
  const submitter = createSubmitter({
    client,
    broadcastClient,
    watchClient,
    address: account.address,
    signer,
    chainId: config.chainId,
    logger,
    journal,
    receiptPollMs: config.receiptPollMs,
    confirmations: config.confirmations,
    ...(config.wsUrl ? { headFeedUrl: config.wsUrl } : {}),
    describe: (slot, receipt) => describeOutcome(context, slot, receipt),
    wouldRevert: (slot, fees) => recheckOrder(context, slot, fees),
    judge: (terms, fees, alsoReservedWei) => economics.judge(terms, fees, { alsoReservedWei }),
    ...(config.economics.maxFeePerGasWei !== undefined ? { maxFeePerGas: config.economics.maxFeePerGasWei } : {}),
    maxPriorityFeePerGas: config.economics.maxPriorityFeePerGasWei,
    keyGuard,
    minedAt: () => context.clock.now(),
    ...(replicas ? { announcer: { announce: (txs) => replicas.announce(txs), notSent: (txs) => replicas.notSent(txs) } } : {}),
  })
  context = {
    config,
    client,
    submitter,
    gasLimits: createGasLimitCache(client, { ttlMs: 10 * 60_000, pad: (gas) => (gas * 13n) / 10n + 25_000n }),
    simulator: createPendingSimulator({ client, address: account.address, broker: config.broker, logger }),
    economics,
    keyGuard,
    clock: createChainClock(client, { refreshMs: 2_000, logger }),
    logger,
    journal,
    // A lease renewed while the order is worked on: a dead replica's claims are free within seconds.
    claims: replicas ? replicas.claims : createLocalClaims(),
    settlements: createSettlementFinder({ client, broker: config.broker, deployedAt: config.deployedAt }),
    ...(replicas ? { outcomes: replicas.outcomes, replicas } : {}),
  }

  const pruning = createJournalPruning({ journal, logger, retentionMs: config.journalRetentionDays * 86_400_000, keepMs: config.revertCooldownMs })
  operations.useEconomics({
    summary: economics.summary,
    gasPriceWei: () => {
      const fees = submitter.lastFees()
      return fees && effectiveGasPrice(fees)
    },
    maxFeePerGasWei: config.economics.maxFeePerGasWei,
    check: async () => moneyNotReady(economics, submitter.lastFees()),
  })

  const drain = createRequestDrain()
  const edge = createEdge(config.edge, {
    client,
    address: account.address,
    logger,
    readBalance: operations.readBalance,
    ...(replicas ? { shareBuckets: (local) => replicas.shareBuckets(local, { ratePerSec: config.edge.ratePerSec, burst: config.edge.rateBurst }) } : {}),
  })
  const { app, routes } = createRelayerApp(context, { version: dependencies.version, pipeline: orderPipeline(context), edge, drain, operations, bodyTimeoutMs: config.bodyTimeoutMs, signerKind: gasSigner.kind })

  return {
    /** The HTTP surface for `app.request` (every route, `POST /broker` included). */
    app,
    /** `Bun.serve`'s routes: `POST /broker` answered past hono (http/brokerRoute.ts). */
    routes,
    context,
    address: account.address,
    /** Metrics, readiness and the status page; the journal plugs in with `operations.useJournal`. */
    operations,
    /** Starts background work and listens; resolves once the port is bound. */
    async serve() {
      try {
        await checkRpcChain(client, config.chainId, logger)
        if (gasSigner.kind === 'private-key') await warnLocalKeyOnRealChain(client, config.chainId, logger)
        await checkJournalMatchesChain(client, journal, account.address)
        // Serves once the shared state is whole (after the restore window on a Redis without an epoch).
        await replicas?.start(config.redisRestoreMs + 10_000)
      } catch (error) {
        await replicas?.stop()
        journal.close()
        await gasSigner.close?.().catch(() => undefined)
        throw error
      }
      // Every request hashes its order: have the fast Keccak loaded before the first one.
      await keccakReady
      await economics.start(config.broker)
      await submitter.start()
      pruning.start()
      const pending = journal.pendingCount()
      if (pending > 0) logger.info(`journal ${journalPath}: watching ${pending} pending tx${pending === 1 ? '' : 's'} left by the last run`)
      context.clock.start()
      edge.start()
      operations.start({ edgePollsBalance: config.edge.enabled })
      const server = Bun.serve({ hostname: config.host, port: config.port, routes, fetch: app.fetch, idleTimeout: 120, maxRequestBodySize: maxServerBodyBytes })
      const url = listenUrl(config.host, server.port as number)
      logger.info(`relayer ${account.address} on chain ${config.chainId}, broker ${config.broker}, listening on ${url}`)
      logger.info(`gas key: ${signerKindName(gasSigner.kind)} ${gasSigner.description}${signer.where === 'service' ? `, ${config.signerConcurrency} signatures at once, each within ${config.signerTimeoutMs} ms` : ''}`)
      for (const line of economics.describe()) logger.info(line)
      for (const line of describeEdge(config.edge)) logger.info(line)
      if (config.wsUrl) logger.info(`new block heads: pushed over ${redactUrl(config.wsUrl)} (RELAYER_WS_URL); polling every ${config.receiptPollMs} ms only as a safety net`)
      if (config.redisUrl) logger.info(`replicas: orderHash claims, outcomes${config.edge.enabled ? ' and rate limits' : ''} shared through Redis at ${redactUrl(config.redisUrl)} (RELAYER_REDIS_URL)`)
      let stopped: Promise<void> | undefined
      return {
        url,
        port: server.port as number,
        /** `${url}/metrics` of the Prometheus listener, when RELAYER_METRICS_PORT is set. */
        metricsUrl: operations.metricsUrl(),
        /**
         * Stop accepting (once requests have stopped coming for a tenth of a second,
         * every answer meanwhile closing its keep-alive connection, so requests already
         * on their way are served), finish
         * every order already in the pipeline and deliver its answer, then release
         * everything. A connection still open 10 s after the last order finished (a
         * client not reading its answer) is cut.
         */
        stop() {
          stopped ??= (async () => {
            // Answers close their connections from now on; requests arriving on open
            // keep-alive connections meanwhile are served, then the listener stops.
            drain.close()
            await drain.quiet(keepAliveQuietMs, keepAliveGraceMs)
            // Resolves once every connection is closed: idle ones at once, the others
            // when their response has been written (not merely computed).
            const closed = server.stop(false)
            // Requests whose headers arrive while draining are counted too: wait until none is left.
            await drain.idle()
            let limit: ReturnType<typeof setTimeout> | undefined
            await Promise.race([closed, new Promise((resolve) => (limit = setTimeout(resolve, drainMarginMs)))])
            clearTimeout(limit)
            await submitter.stop()
            await pruning.stop()
            economics.stop()
            context.clock.stop()
            edge.stop()
            operations.stop()
            await server.stop(true)
            journal.close()
            await replicas?.stop()
            await gasSigner.close?.().catch((error: unknown) => logger.warn(`the gas key's signer did not close cleanly (${errorLine(error)})`))
          })()
          return stopped
        },
      }
    },
  }
}

export type Relayer = ReturnType<typeof createRelayer>
export type RelayerServer = Awaited<ReturnType<Relayer['serve']>>
