import { Hono } from 'hono'
import { Gauge } from 'prom-client'
import type { Address, PublicClient } from 'viem'
import { createRelayerMetrics, type MetricsListener, relayerPage, serveMetrics } from '../../metrics/index.ts'
import { type Logger, silentLogger } from '../../shared/index.ts'
import type { RelayerStatus } from '../../wire/index.ts'
import type { GasSignerKind } from '../../signers/index.ts'
import type { SharedStateView } from '../replicas/index.ts'
import type { RelayerConfig } from '../config.ts'
import type { EconomicsSummary } from '../economics/index.ts'
import { createBalanceWatch } from '../edge/balanceWatch.ts'
import type { AccessLogVariables } from '../accessLog.ts'
import { createKeyState } from './keyState.ts'
import { createReadiness, type ReadyCheckDefinition } from './readiness.ts'
import { createSharedStateMetrics, type SharedStateSource } from './sharedStateMetrics.ts'

/** What a relayer replica shows of its shared state (RELAYER_REDIS_URL, docs/scaling.md). */
export type ReplicasSource = SharedStateSource & { readonly state: { readonly whole: boolean; readonly view: SharedStateView } }

export type RelayerOperationsOptions = {
  config: RelayerConfig
  address: Address
  version: string
  logger: Logger
  /** The relayer's RPC client (a getter: the client is built after the transport observer). */
  client: () => PublicClient
  /** Orders being settled now. */
  inflight: () => number
  /** Which gas key signs (its kind and a description without secrets), for `/status` and the metrics. */
  signer?: { kind: GasSignerKind; description: string }
}

/** What the relayer's economics plug in once they exist (docs/economics.md). */
export type EconomicsHooks = {
  /** The books and the hour's spending, with the runway at `balanceWei`. */
  summary(balanceWei: bigint | undefined): EconomicsSummary
  /** The price per gas an order would pay now, when known. */
  gasPriceWei(): bigint | undefined
  maxFeePerGasWei: bigint | undefined
  /** Readiness: why new orders are refused for money (spending cap, gas price over the cap), else undefined. */
  check(): Promise<string | undefined>
}

/** What the relayer journal plugs in once it exists (see docs/operations.md). */
export type JournalHooks = {
  /** Readiness: a reason when the journal cannot be written or read, else undefined. */
  check: () => Promise<string | undefined>
  pendingTransactions: () => number | undefined
  nonceGap: () => number | undefined
}

/**
 * Everything an operator looks at: the Prometheus metrics (and their listener when
 * RELAYER_METRICS_PORT is set), `GET /ready`, `GET /status` and the status page at
 * `GET /`. The relayer mounts `routes`, gives `observe` every request, passes `rpc` to
 * its transport and `readBalance` to the edge's balance watch.
 */
export function createRelayerOperations(options: RelayerOperationsOptions) {
  const { config, address, logger } = options
  const startedAt = Date.now()
  const floor = config.edge.gasFloorWei
  const key = createKeyState(options.client, address)
  let journal: JournalHooks | undefined
  let replicas: ReplicasSource | undefined
  let economics: EconomicsHooks | undefined
  // Why the gas key's signer takes no new order (a remote signer or KMS down); a local key is always up.
  let signerDown: () => string | undefined = () => undefined
  // Until the journal reports them: the node's pending minus mined nonce of the key.
  const nodePending = () => {
    const nonces = key.nonces()
    return nonces ? nonces.pending - nonces.latest : undefined
  }
  const metrics = createRelayerMetrics(address, {
    balanceWei: key.balance,
    gasFloorWei: floor,
    pendingTransactions: () => (journal ? journal.pendingTransactions() : nodePending()),
    nonceGap: () => journal?.nonceGap(),
    money: () => economics?.summary(key.balance()),
  })

  let chainIdRead: { at: number; result: Promise<number> } | undefined
  const remoteChainId = () => {
    if (!chainIdRead || Date.now() - chainIdRead.at > 1_000) chainIdRead = { at: Date.now(), result: options.client().getChainId() }
    return chainIdRead.result
  }
  const checks: ReadyCheckDefinition[] = [
    {
      name: 'rpc',
      check: () => remoteChainId().then(
        () => undefined,
        () => "the relayer's RPC does not answer: check RELAYER_RPC_URL and the node",
      ),
    },
    {
      name: 'chain',
      check: () => remoteChainId().then(
        (remote) => (remote === config.chainId ? undefined : `the RPC serves chain ${remote}, not RELAYER_CHAIN_ID ${config.chainId}: point RELAYER_RPC_URL at a node of chain ${config.chainId}`),
        () => 'chain id unknown: the RPC does not answer',
      ),
    },
    {
      name: 'balance',
      check: () => key.freshBalance(2_000).then(
        (wei) => (wei >= floor ? undefined : `the gas key's balance ${wei} wei is below the floor ${floor} wei (RELAYER_GAS_FLOOR_WEI): send native gas to ${address}`),
        () => 'balance unknown: the RPC does not answer',
      ),
    },
  ]
  const readiness = createReadiness(checks)

  const routes = new Hono<{ Variables: AccessLogVariables }>()
  routes.get('/ready', async (c) => {
    const result = await readiness.current()
    if (!result.ready) c.set('code', 'NOT_READY')
    return c.json(result, result.ready ? 200 : 503)
  })
  routes.get('/status', async (c) => {
    // Keep the page's balance and nonces fresh even when nothing polls them.
    await key.freshBalance(2_000).catch(() => undefined)
    const summary = metrics.recent.summary()
    const pending = journal ? journal.pendingTransactions() : nodePending()
    const gap = journal?.nonceGap()
    const status: RelayerStatus = {
      version: options.version,
      address,
      chainId: config.chainId,
      uptimeSeconds: (Date.now() - startedAt) / 1000,
      balanceWei: key.balance()?.toString() ?? null,
      gasFloorWei: floor.toString(),
      feeFloorBps: config.feeFloorBps,
      ordersPerMinute: summary.perMinute,
      latencySeconds: summary.latencySeconds,
      inflight: options.inflight(),
      pendingTransactions: pending ?? null,
      nonceGap: gap ?? null,
      nonces: key.nonces() ?? null,
      ...(options.signer ? { signer: signerStatus(options.signer, signerDown()) } : {}),
      ...(replicas ? { sharedState: sharedStateOf(replicas.state.view) } : {}),
      economics: economics ? statusEconomics(economics, key.balance()) : null,
    }
    c.header('Cache-Control', 'no-store')
    return c.json(status)
  })
  routes.get('/', (c) => c.html(relayerPage))

  const sharedStateMetrics = createSharedStateMetrics(metrics.registry)
  if (options.signer) {
    const { kind } = options.signer
    new Gauge({
      name: 'order_relay_relayer_signer_up',
      help: "1 while the gas key's signer signs, 0 while it fails or times out (a remote signer or KMS: no new order is taken); the label says which kind signs.",
      labelNames: ['kind'],
      registers: [metrics.registry],
      collect() {
        this.set({ kind }, signerDown() === undefined ? 1 : 0)
      },
    })
  }

  // Polls the balance for the gauge when metrics are on and the edge's watch is not running.
  const watch = createBalanceWatch({ readBalance: key.readBalance, floorWei: floor, pollMs: config.edge.balancePollMs, logger: silentLogger })
  let listener: MetricsListener | undefined

  return {
    /** The metrics' begin/answered of a request, for the app's request observer (http/requestObserver.ts). */
    observe: metrics.observe,
    rpc: metrics.rpc,
    routes,
    readBalance: key.readBalance,
    readiness,
    registry: metrics.registry,
    /** The shared-Redis gauge and error counter (relayer replicas, docs/scaling.md). */
    redis: metrics.redis,
    /** The shared state's hooks for its metrics (relayer replicas). */
    sharedState: sharedStateMetrics.hooks,
    /** Plugs a replica's shared state in: a readiness check, its part of `/status`, its metrics. */
    useReplicas(source: ReplicasSource) {
      replicas = source
      sharedStateMetrics.use(source)
      readiness.add({ name: 'shared-state', check: async () => (source.state.whole ? undefined : source.state.view.reason) })
    },
    /** Plugs the economics' readiness check, status and gauges in (called once by createRelayer). */
    useEconomics(hooks: EconomicsHooks) {
      economics = hooks
      readiness.add({ name: 'spending', check: hooks.check })
    },
    /** Plugs the signer's health in: a readiness check, its state in `/status` and the gauge (a remote signer or KMS). */
    useSignerHealth(down: () => string | undefined) {
      signerDown = down
      readiness.add({ name: 'signer', check: async () => down() })
    },
    /** Plugs the journal's readiness check and gauges in (called once by createRelayer). */
    useJournal(hooks: JournalHooks) {
      journal = hooks
      readiness.add({ name: 'journal', check: hooks.check })
    },
    /** Starts the metrics listener (when configured) and, unless the edge polls already, the balance poll. */
    start({ edgePollsBalance }: { edgePollsBalance: boolean }) {
      if (!config.metrics) return
      if (!edgePollsBalance) void watch.start()
      listener = serveMetrics(metrics.registry, { ...config.metrics, logger, surface: 'relayer' })
    },
    metricsUrl: () => listener?.url,
    stop() {
      watch.stop()
      listener?.stop()
      listener = undefined
    },
  }
}

export type RelayerOperations = ReturnType<typeof createRelayerOperations>

/** The shared state as `/status` shows it: the state, and while it is not whole, why and since when. */
function sharedStateOf(view: SharedStateView): NonNullable<RelayerStatus['sharedState']> {
  return {
    state: view.state,
    ...(view.reason === undefined ? {} : { reason: view.reason }),
    ...(view.since === undefined ? {} : { since: new Date(view.since).toISOString() }),
  }
}

/** The economics as GET /status shows them (wei as decimal strings). */
function statusEconomics(hooks: EconomicsHooks, balanceWei: bigint | undefined): RelayerStatus['economics'] {
  const summary = hooks.summary(balanceWei)
  const price = hooks.gasPriceWei()
  return {
    tokens: summary.tokens.map((each) => ({ token: each.token, feesEarned: String(each.feesEarned), feesEarnedWei: String(each.feesEarnedWei), orders: each.orders, unvaluedOrders: each.unvaluedOrders })),
    feesEarnedWei: String(summary.feesEarnedWei),
    gasSpentWei: String(summary.gasSpentWei),
    netWei: String(summary.netWei),
    lastHour: {
      spentWei: String(summary.lastHour.spentWei),
      reservedWei: String(summary.lastHour.reservedWei),
      capWei: summary.lastHour.capWei === undefined ? null : String(summary.lastHour.capWei),
      unpricedSpentWei: String(summary.lastHour.unpricedSpentWei),
      unpricedBudgetWei: String(summary.lastHour.unpricedBudgetWei),
    },
    runwayHours: summary.runwayHours ?? null,
    gasPriceWei: price === undefined ? null : String(price),
    maxFeePerGasWei: hooks.maxFeePerGasWei === undefined ? null : String(hooks.maxFeePerGasWei),
  }
}

/** The gas key's signer as GET /status shows it: which kind, which key (no secret), and whether it signs. */
function signerStatus(signer: { kind: GasSignerKind; description: string }, down: string | undefined): NonNullable<RelayerStatus['signer']> {
  return { kind: signer.kind, description: signer.description, up: down === undefined, ...(down === undefined ? {} : { reason: down }) }
}
