import { RelayError } from '../../../src/relayer/errors.ts'
import { createBodyDeadlines } from '../../../src/relayer/http/bodyDeadlines.ts'
import { createBrokerRoute } from '../../../src/relayer/http/brokerRoute.ts'
import { maxBodyBytes, readJsonBody } from '../../../src/relayer/http/readJsonBody.ts'
import { createRequestObserver } from '../../../src/relayer/http/requestObserver.ts'
import { checkRequest, orderPipeline } from '../../../src/relayer/pipeline.ts'
import { silentLogger } from '../../../src/shared/index.ts'
import { type RejectionBody, rejectingRelayer, rejectionBodies } from './rejectionFixtures.ts'
import { median } from './stats.ts'

/**
 * The routes a served rejection is measured on, each one step more of the relayer's:
 * - `least`: the body as text, parsed, the relayer's three checks, the access line (the
 *   least relayer's route, scripts/bench/servers/leastRelayer.ts);
 * - `leastDeadline`: the same, the body read within the relayer's body deadline
 *   (`createBodyDeadlines().within`);
 * - `leastRead`: the same, the body read by the relayer's `readJsonBody` (content type,
 *   size limit, deadline, UTF-8);
 * - `route`: the relayer's `POST /broker` route (http/brokerRoute.ts) with the access
 *   line only: no metrics, no drain;
 * - `relayer`: the relayer's `POST /broker` as served (its metrics and drain too).
 */
export const servedStages = ['least', 'leastDeadline', 'leastRead', 'route', 'relayer'] as const
export type ServedStage = (typeof servedStages)[number]
export type ServedRejectionCost = {
  stage: ServedStage
  /** µs of this process's CPU per request (server and client: the client's share is the same for every stage), median of the rounds. */
  us: number
  /** This stage less `least`, µs, the median of the rounds' differences (0 for `least`). */
  overLeastUs: number
  /** The answers of every round: status → count. */
  statuses: Record<number, number>
}

/**
 * What a rejection costs each route over real HTTP, in one process: one `Bun.serve`
 * serves every stage, and this process's own `fetch` client (`inFlight` requests at a
 * time) loads them in alternating rounds of `requests`. Measuring in one process makes
 * the machine's swings fall on the stages of a round alike, which separate servers
 * loaded in turn do not (their rounds differed by ±30 % on a 2-core machine); the
 * differences to `least` are still taken round by round. No chain (rejectionFixtures.ts).
 */
export async function measureServedRejections(options: { body: RejectionBody; rounds: number; requests: number; inFlight?: number; stages?: readonly ServedStage[] }): Promise<ServedRejectionCost[]> {
  const stages = servedStages.filter((stage) => stage === 'least' || (options.stages ?? servedStages).includes(stage))
  const body = (await rejectionBodies())[options.body]
  const relayer = await rejectingRelayer(silentLogger)
  const deadlines = createBodyDeadlines(10_000)
  const late = () => new Error('the body did not arrive in time')
  const headers = { 'content-type': 'application/json' }
  const refuse = (read: (request: Request) => Promise<unknown>) => async (request: Request) => {
    const checked = checkRequest(relayer.context, await read(request))
    const refusal = checked instanceof RelayError ? checked : new RelayError('MALFORMED_ORDER', 'passed the checks')
    silentLogger.info(`POST /broker ${refusal.status} ${refusal.code}`, { method: 'POST', path: '/broker', status: refusal.status, code: refusal.code })
    return new Response(JSON.stringify(refusal.toBody()), { status: refusal.status, headers })
  }
  const routes: Record<ServedStage, (request: Request) => Promise<Response>> = {
    least: refuse(async (request) => JSON.parse(await request.text())),
    leastDeadline: refuse(async (request) => JSON.parse(await deadlines.within(request.text(), late))),
    leastRead: refuse((request) => readJsonBody(request, { maxBytes: maxBodyBytes, deadlineMs: 10_000, deadlines })),
    route: createBrokerRoute(relayer.context, { pipeline: orderPipeline(relayer.context), limits: { maxBytes: maxBodyBytes, deadlineMs: 10_000, deadlines }, observer: createRequestObserver({ logger: silentLogger }) }),
    relayer: (request) => relayer.routes['/broker'].POST(request),
  }
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, routes: Object.fromEntries(stages.map((stage) => [`/${stage}`, { POST: routes[stage] }])) })
  // The answers of the measured rounds (the warm-up's are not counted).
  const statuses = new Map<ServedStage, Record<number, number>>(stages.map((stage) => [stage, {}]))
  let counting = false
  const cpuUs = () => {
    const { user, system } = process.cpuUsage()
    return user + system
  }
  async function round(stage: ServedStage, requests: number): Promise<number> {
    const url = `http://127.0.0.1:${server.port}/${stage}`
    const seen = statuses.get(stage)!
    let left = requests
    const started = cpuUs()
    await Promise.all(
      Array.from({ length: options.inFlight ?? 32 }, async () => {
        while (left-- > 0) {
          const response = await fetch(url, { method: 'POST', headers, body })
          await response.arrayBuffer()
          if (counting) seen[response.status] = (seen[response.status] ?? 0) + 1
        }
      }),
    )
    return (cpuUs() - started) / requests
  }
  try {
    for (const stage of stages) await round(stage, Math.min(options.requests, 2_000)) // warm-up
    counting = true
    const costs = new Map<ServedStage, number[]>(stages.map((stage) => [stage, []]))
    const overLeast = new Map<ServedStage, number[]>(stages.map((stage) => [stage, []]))
    for (let index = 0; index < options.rounds; index++) {
      // Each round starts at another stage, so none always runs first.
      const order = stages.map((_, at) => stages[(at + index) % stages.length]!)
      const taken = new Map<ServedStage, number>()
      for (const stage of order) taken.set(stage, await round(stage, options.requests))
      for (const stage of stages) {
        costs.get(stage)!.push(taken.get(stage)!)
        overLeast.get(stage)!.push(taken.get(stage)! - taken.get('least')!)
      }
    }
    return stages.map((stage) => ({ stage, us: median(costs.get(stage)!), overLeastUs: median(overLeast.get(stage)!), statuses: statuses.get(stage)! }))
  } finally {
    server.stop(true)
  }
}
