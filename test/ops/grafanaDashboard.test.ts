// deploy/grafana/order-relay.json against a real Prometheus (Debian's package) scraping a
// devnet relayer and indexer: after orders settled and refused, every panel's query,
// evaluated through Prometheus's HTTP API with Grafana's variables filled in, returns data,
// and every metric the dashboard names is one docs/operations.md lists.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { hasPrometheus, prometheusMissing, type Sample, type ScrapedDevnet, startScrapedDevnet } from '../helpers/prometheus.ts'

if (!hasPrometheus) console.log(prometheusMissing('test/ops/grafanaDashboard.test.ts'))

const repoRoot = resolve(import.meta.dir, '../..')

type Target = { expr: string; refId: string; datasource: { type: string; uid: string } }
type Panel = { id: number; type: string; title: string; datasource?: { type: string; uid: string }; targets?: Target[]; panels?: Panel[] }
type Dashboard = { schemaVersion: number; uid: string; panels: Panel[]; templating: { list: { name: string; type: string; allValue?: string }[] } }

const dashboard = JSON.parse(readFileSync(join(repoRoot, 'deploy/grafana/order-relay.json'), 'utf8')) as Dashboard
const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]).filter((panel) => panel.type !== 'row')
const queries = panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, refId: target.refId, expr: target.expr })))

/**
 * A panel query as Grafana sends it: its built-in interval variables as concrete durations
 * (the scrape interval is 1 s, so a minute holds enough samples for rate()) and each
 * dashboard variable as its "All" value.
 */
function concrete(expr: string): string {
  let out = expr.replaceAll('$__rate_interval', '1m').replaceAll('$__interval', '15s').replaceAll('$__range', '1h')
  for (const variable of dashboard.templating.list) {
    if (variable.allValue !== undefined) out = out.replaceAll(`$${variable.name}`, variable.allValue)
  }
  return out
}

test('the dashboard is a Grafana dashboard over a chosen Prometheus data source, its metrics all documented', () => {
  expect(dashboard.schemaVersion).toBe(39)
  expect(dashboard.uid).toBe('order-relay')
  expect(dashboard.templating.list.find((variable) => variable.name === 'datasource')?.type).toBe('datasource')
  for (const panel of panels) {
    expect({ panel: panel.title, datasource: panel.datasource }).toEqual({ panel: panel.title, datasource: { type: 'prometheus', uid: '${datasource}' } })
    expect({ panel: panel.title, targets: (panel.targets ?? []).length > 0 }).toEqual({ panel: panel.title, targets: true })
    for (const target of panel.targets ?? []) expect(target.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' })
  }
  expect(queries.length).toBe(27)
  // Every variable is filled in before a query reaches Prometheus.
  for (const { expr } of queries) expect({ expr, left: concrete(expr).includes('$') }).toEqual({ expr, left: false })
  const operations = readFileSync(join(repoRoot, 'docs/operations.md'), 'utf8')
  const metrics = new Set(queries.flatMap(({ expr }) => expr.match(/order_relay_[a-z_]+/g) ?? []).map((name) => name.replace(/_bucket$/, '')))
  for (const metric of metrics) expect({ metric, documented: operations.includes(`| \`${metric}\` |`) }).toEqual({ metric, documented: true })
})

let stack: ScrapedDevnet
/** Codes of the POST /broker answers the test caused, in the order sent. */
const codes: string[] = []

beforeAll(async () => {
  if (!hasPrometheus) return
  stack = await startScrapedDevnet()
  const { devnet, relayer } = stack
  await stack.queryUntil('up', (samples) => samples.length === 2 && samples.every((s) => s.value[1] === '1'), 'the relayer and indexer targets never came up')
  // Two settled orders, one refused for its body and one for an authorization that expired an hour ago.
  for (let i = 0; i < 2; i++) {
    const settled = await relayer.post(await signed(devnet, allocationOrder(devnet)))
    expect(settled.status).toBe(200)
    codes.push('OK')
  }
  const malformed = await relayer.post(undefined, { raw: '{"order": "not an order"}' })
  expect([malformed.status, malformed.body.code]).toEqual([400, 'MALFORMED_ORDER'])
  codes.push('MALFORMED_ORDER')
  const expired = await relayer.post(await signed(devnet, allocationOrder(devnet), { validBefore: BigInt(Math.floor(Date.now() / 1000) - 3600) }))
  expect([expired.status, expired.body.code]).toEqual([422, 'AUTH_EXPIRED'])
  codes.push('AUTH_EXPIRED')
  // Scraped: every answer counted, both txs mined and costed, and the hour's spending known.
  await stack.queryUntil('sum(order_relay_relayer_http_requests_total{route="/broker"})', (s) => s[0]?.value[1] === String(codes.length), `Prometheus never counted the ${codes.length} answers`)
  await stack.queryUntil('order_relay_relayer_runway_seconds', (s) => s.length === 1, 'no runway sample after two mined orders')
  await stack.queryUntil('sum(order_relay_relayer_fees_earned_wei)', (s) => Number(s[0]?.value[1]) > 0, 'no fees earned sample')
}, 180_000)

afterAll(async () => {
  await stack?.stop()
}, 30_000)

describe.skipIf(!hasPrometheus)("every panel's query returns data from Prometheus", () => {
  test('each of the 27 queries answers with at least one sample holding a number', async () => {
    // A rate() or increase() has data once Prometheus holds two samples of a series in its
    // window, a scrape or two after the series first appeared: each query is polled until it
    // answers, for 20 s at most, all at once.
    const holdsNumber = (samples: Sample[]) => samples.some((sample) => Number.isFinite(Number(sample.value[1])))
    const empty = await Promise.all(
      queries.map(async ({ panel, refId, expr }) => {
        let answer: Awaited<ReturnType<typeof stack.query>> | undefined
        try {
          await waitFor(`${panel} (${refId}) to hold a number`, async () => {
            answer = await stack.query(concrete(expr))
            return answer.status === 'success' && holdsNumber(answer.data?.result ?? [])
          }, 20_000, 250)
          return undefined
        } catch {
          return `${panel} (${refId}): ${concrete(expr)} → ${JSON.stringify(answer)}`
        }
      }),
    )
    expect(empty.filter((each) => each !== undefined)).toEqual([])
  }, 60_000)

  test('the orders-by-code panels hold exactly the codes the relayer answered', async () => {
    const codesOf = (samples: Sample[]) => samples.map((sample) => sample.metric.code).sort()
    const byCode = queries.find((query) => query.panel === 'Orders by code over the range')!
    const all = [...new Set(codes)].sort()
    await stack.queryUntil(concrete(byCode.expr), (samples) => Bun.deepEquals(codesOf(samples), all), `the orders-by-code panel never held ${all.join(', ')}`)
    const refused = queries.find((query) => query.panel === 'Orders refused per minute, by code')!
    const refusedCodes = await stack.queryUntil(concrete(refused.expr), (samples) => samples.length === 2, 'the refused-by-code panel never held two codes')
    expect(codesOf(refusedCodes)).toEqual(['AUTH_EXPIRED', 'MALFORMED_ORDER'])
  })

  test('the money and lag panels read what the relayer and indexer hold: two mined txs, none reverted', async () => {
    const mined = await stack.query('order_relay_relayer_transactions_total')
    expect(mined.data!.result.map((sample) => [sample.metric.status, sample.value[1]])).toEqual([['success', '2']])
    const lag = queries.find((query) => query.panel === 'Indexer lag')!
    const lagAnswer = await stack.query(concrete(lag.expr))
    expect(lagAnswer.data!.result).toHaveLength(1)
    expect(Number(lagAnswer.data!.result[0]!.value[1])).toBeGreaterThanOrEqual(0)
  })
})
