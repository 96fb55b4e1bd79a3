import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { createAnswerCounts } from './answerCounts.ts'
import { createRecentOrders } from './recentOrders.ts'
import { createRpcMetrics } from './rpcMetrics.ts'
import { createReceiptGas } from './receiptGas.ts'

/** Internal state the gauges read at scrape time; undefined means "not known yet" (no sample). */
export type RelayerGaugeSources = {
  balanceWei: () => bigint | undefined
  gasFloorWei: bigint
  /** Transactions from the gas key not mined yet. Wired to the journal once it exists. */
  pendingTransactions: () => number | undefined
  /** Nonces handed out locally but not yet used on chain. Wired to the journal once it exists. */
  nonceGap: () => number | undefined
  /** Fees earned, gas spent and the hour's spending (docs/economics.md); undefined before the economics exist. */
  money: () => MoneySummary | undefined
}

/** What the money gauges read (the relayer's EconomicsSummary, in the fields they use). */
export type MoneySummary = {
  tokens: ReadonlyArray<{ token: string; feesEarned: bigint; feesEarnedWei: bigint }>
  feesEarnedWei: bigint
  gasSpentWei: bigint
  netWei: bigint
  lastHour: { spentWei: bigint; reservedWei: bigint; capWei: bigint | undefined }
  runwayHours: number | undefined
}

/** Paths with their own `route` label; anything else is `unmatched` (keeps the label set bounded). */
export const relayerRoutes = ['/broker', '/info', '/ready', '/status', '/', '/api/openapi.json']

export const settlementBuckets = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120]

/**
 * The relayer's Prometheus metrics (docs/operations.md lists each one): `observe`
 * counts HTTP answers and in-flight requests and times settlements, the RPC
 * observer counts calls by method and reads the gas of the relayer's own receipts,
 * the gauges read `sources` at scrape time.
 */
export function createRelayerMetrics(address: string, sources: RelayerGaugeSources) {
  const registry = new Registry()
  const registers = [registry]
  // Counted in plain numbers per request and handed to prom-client at scrape time:
  // its label hashing and validation cost more than a rejection's own checks.
  const answers = createAnswerCounts()
  let inflight = 0
  new Counter({
    name: 'order_relay_relayer_http_requests_total',
    help: 'HTTP answers of the relayer, by route, status and code (the access log code; - when none).',
    labelNames: ['route', 'status', 'code'],
    registers,
    collect() {
      this.reset()
      answers.forEach((labels, count) => this.inc(labels, count))
    },
  })
  new Gauge({
    name: 'order_relay_relayer_http_requests_in_flight',
    help: 'HTTP requests being handled now.',
    registers,
    collect() {
      this.set(inflight)
    },
  })
  const settlement = new Histogram({
    name: 'order_relay_relayer_settlement_duration_seconds',
    help: 'Time from receiving POST /broker to answering it settled (200 OK).',
    buckets: settlementBuckets,
    registers,
  })
  new Gauge({
    name: 'order_relay_relayer_balance_wei',
    help: "The gas key's native balance in wei, as last polled.",
    registers,
    collect() {
      const balance = sources.balanceWei()
      if (balance !== undefined) this.set(Number(balance))
    },
  })
  new Gauge({ name: 'order_relay_relayer_gas_floor_wei', help: 'Balance below which /ready fails and the hardened edge pauses POST /broker.', registers }).set(
    Number(sources.gasFloorWei),
  )
  new Gauge({
    name: 'order_relay_relayer_pending_transactions',
    help: 'Transactions from the gas key broadcast and not mined yet.',
    registers,
    collect() {
      const pending = sources.pendingTransactions()
      if (pending !== undefined) this.set(pending)
    },
  })
  new Gauge({
    name: 'order_relay_relayer_nonce_gap',
    help: 'Nonces handed out by the relayer and not yet used on chain.',
    registers,
    collect() {
      const gap = sources.nonceGap()
      if (gap !== undefined) this.set(gap)
    },
  })
  // The money (docs/economics.md), read at scrape time from the relayer's books and hour ledger.
  const moneyGauge = (name: string, help: string, read: (summary: MoneySummary) => bigint | number | undefined) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const summary = sources.money()
        const value = summary && read(summary)
        if (value !== undefined) this.set(Number(value))
      },
    })
  const perToken = (name: string, help: string, read: (token: MoneySummary['tokens'][number]) => bigint) =>
    new Gauge({
      name,
      help,
      labelNames: ['token'],
      registers,
      collect() {
        this.reset()
        for (const each of sources.money()?.tokens ?? []) this.set({ token: each.token }, Number(read(each)))
      },
    })
  perToken('order_relay_relayer_fees_earned_wei', 'Native value (wei) of the fees earned, per pay token, as each order was valued when signed.', (each) => each.feesEarnedWei)
  perToken('order_relay_relayer_fees_earned_base_units', 'Fees earned, in base units of each pay token.', (each) => each.feesEarned)
  moneyGauge('order_relay_relayer_gas_spent_wei', 'Wei every mined tx of the gas key cost (gas used × effective gas price).', (m) => m.gasSpentWei)
  moneyGauge('order_relay_relayer_net_wei', 'Fees earned (native value) minus gas spent, in wei.', (m) => m.netWei)
  moneyGauge('order_relay_relayer_spend_last_hour_wei', 'Gas spent by txs mined in the last hour, in wei.', (m) => m.lastHour.spentWei)
  moneyGauge('order_relay_relayer_spend_reserved_wei', 'The most the txs not yet mined can still cost (gas limit × fee cap), in wei.', (m) => m.lastHour.reservedWei)
  moneyGauge('order_relay_relayer_spend_cap_wei', 'RELAYER_MAX_SPEND_WEI_PER_HOUR (absent when there is none).', (m) => m.lastHour.capWei)
  moneyGauge('order_relay_relayer_runway_seconds', "How long the gas key's balance lasts at the last hour's spending (absent when nothing was spent).", (m) =>
    m.runwayHours === undefined ? undefined : Math.round(m.runwayHours * 3600),
  )
  // Relayer replicas (RELAYER_REDIS_URL, docs/scaling.md): registered at the first report, so
  // they are absent without Redis (an unlabelled gauge would otherwise read 0, "down").
  let redisMetrics: { up: Gauge; errors: Counter; roundTrips: Counter<'purpose'> } | undefined
  const redisGauges = () =>
    (redisMetrics ??= {
      up: new Gauge({ name: 'order_relay_relayer_redis_up', help: '1 while the shared Redis answers, 0 during an outage (the replica serves on local state).', registers }),
      errors: new Counter({ name: 'order_relay_relayer_redis_errors_total', help: 'Redis commands that failed or took over 1 s (each fell back to local state).', registers }),
      roundTrips: new Counter({
        name: 'order_relay_relayer_shared_state_round_trips_total',
        help: 'Round trips to the shared Redis (a command, script or pipeline sent and its answer awaited), by what they were for (docs/scaling.md).',
        labelNames: ['purpose'] as const,
        registers,
      }),
    })
  const recent = createRecentOrders()
  const receiptGas = createReceiptGas(registry, address)

  /**
   * One request, around its handling: `begin()` as it comes (it counts as in flight),
   * then `answered(…, began)`. Synchronous, so the app's request observer calls it
   * beside the drain and the access line (http/requestObserver.ts).
   */
  const observe = {
    begin(): number {
      inflight++
      return performance.now()
    },
    /** One answered request, `began` being `begin`'s value. */
    answered(method: string, path: string, status: number, code: string, began: number) {
      inflight--
      const route = relayerRoutes.includes(path) ? path : 'unmatched'
      answers.add(route, status, code)
      if (path === '/broker' && method === 'POST') {
        const seconds = (performance.now() - began) / 1000
        if (code === 'OK') settlement.observe(seconds)
        recent.add(code, seconds)
      }
    },
  }
  const redis = {
    up(up: boolean) {
      redisGauges().up.set(up ? 1 : 0)
    },
    error() {
      redisGauges().errors.inc()
    },
    roundTrip(purpose: string) {
      redisGauges().roundTrips.inc({ purpose })
    },
  }
  return { registry, observe, rpc: createRpcMetrics(registry, receiptGas), recent, redis }
}

export type RelayerMetrics = ReturnType<typeof createRelayerMetrics>
