import type { Hex } from 'viem'
import type { BrokerStatus, RelaySuccess } from '../../wire/index.ts'
import { type BrokerGate, type EdgeRefusal, refusalAnswer, type SocketReader } from '../edge/index.ts'
import type { RelayerContext } from '../context.ts'
import { asRelayError, RelayError } from '../errors.ts'
import { type BodyLimits, bodyLeftUnread, readJsonBody } from './readJsonBody.ts'
import type { RequestObserver } from './requestObserver.ts'

/** `POST /broker`, as a `Bun.serve` route: the request, and the server that tells its socket address. */
export type BrokerRoute = (request: Request, server?: SocketReader) => Promise<Response>

/**
 * The pipeline as `POST /broker` runs it (pipeline.ts's `checkRequest` and `relayChecked`,
 * handed in by createRelayer): the checks that need no I/O, whose refusal is answered at
 * once, then the rest of the way to an outcome.
 */
export type BrokerPipeline<Checked extends { orderHash: Hex }> = {
  check: (body: unknown) => Checked | RelayError
  /** `onBroadcast` runs once the node accepted the order's tx (`Prefer: respond-async` answers 202 then). */
  relay: (checked: Checked, options?: { onBroadcast?: (txHash: Hex) => void }) => Promise<RelaySuccess>
}

export type BrokerRouteOptions<Checked extends { orderHash: Hex }> = {
  pipeline: BrokerPipeline<Checked>
  limits: BodyLimits
  /** The drain, the metrics and the access line, as for every route. */
  observer: RequestObserver
  /** The hardened edge's rules for this route; undefined when the edge is off. */
  gate?: BrokerGate
}

type Answer = { status: number; code: string; body: unknown; headers?: Record<string, string> }

/** 202 to `Prefer: respond-async`: the order's status as `GET /broker/{orderHash}` tells it (pending, with its tx). */
function accepted(orderHash: Hex, txHash: Hex): Answer {
  const body: BrokerStatus = { orderHash, status: 'pending', txHash }
  return { status: 202, code: 'ACCEPTED', body, headers: { location: `/broker/${orderHash}`, 'preference-applied': 'respond-async' } }
}

const json = { 'content-type': 'application/json' }

/**
 * The relayer's one hot route, answered without a web framework: a rejection under a
 * flood costs its server little more than the checks themselves (hono's context, its
 * middleware chain and its response headers cost a rejection about a fifth of its
 * CPU, measured with scripts/profile-rejections.ts). In order: observed (metrics, drain, access line), the
 * hardened edge's rate limit (it needs only the client's address, so every request
 * pays a token, a malformed body too), the body read with its size and time limits,
 * the edge's breaker and cap (after the body, so the cap counts orders being settled,
 * never clients slowly sending bytes), the checks that need no I/O, then the pipeline. Every failure is answered `{ok:false, code, message}`.
 *
 * @example
 * const pipeline = { check: (body: unknown) => checkRequest(context, body), relay: (checked: CheckedRequest, options?: RelayOptions) => relayChecked(context, checked, options) }
 * const postBroker = createBrokerRoute(context, { pipeline, limits: { maxBytes: maxBodyBytes, deadlineMs: 10_000 }, observer })
 * Bun.serve({ routes: { '/broker': { POST: postBroker } }, fetch: app.fetch })
 */
export function createBrokerRoute<Checked extends { orderHash: Hex }>(context: Pick<RelayerContext, 'logger'>, options: BrokerRouteOptions<Checked>): BrokerRoute {
  const { pipeline, limits, observer, gate } = options
  const failed = (failure: RelayError): Answer => ({
    status: failure.status,
    code: failure.code,
    body: failure.toBody(),
    // A body declared too large was never read: close rather than take its bytes in.
    ...(failure.cause === bodyLeftUnread ? { headers: { connection: 'close' } } : {}),
  })

  // A refusal by the checks is answered at once: no throw, no async frame.
  function settle(body: unknown): Answer | Promise<Answer> {
    const checked = pipeline.check(body)
    if (checked instanceof RelayError) return failed(checked)
    return pipeline.relay(checked).then(
      (success): Answer => ({ status: 200, code: 'OK', body: success }),
      (error: unknown) => failed(asRelayError(context, error)),
    )
  }

  const refused = (refusal: EdgeRefusal): Answer => ({ ...refusalAnswer(refusal), code: refusal.code, ...(refusal.headers ? { headers: refusal.headers } : {}) })

  /**
   * `Prefer: respond-async` (RFC 7240): 202 with the order's status route (`Location`)
   * once its tx is broadcast. Whatever is decided first is answered as without it: every
   * refusal before broadcast, a replay or an order the journal holds. The pipeline goes
   * on to the receipt after the 202, held in the SIGTERM drain; `finished` runs when it ends.
   */
  function settleAsync(body: unknown, finished: () => void): Answer | Promise<Answer> {
    const checked = pipeline.check(body)
    if (checked instanceof RelayError) {
      finished()
      return failed(checked)
    }
    const release = observer.hold()
    return new Promise<Answer>((resolve) => {
      const onBroadcast = (txHash: Hex) => resolve(accepted(checked.orderHash, txHash))
      pipeline.relay(checked, { onBroadcast })
        .then(
          (success): Answer => ({ status: 200, code: 'OK', body: success }),
          (error: unknown) => failed(asRelayError(context, error)),
        )
        .then(resolve)
        .finally(() => {
          release()
          finished()
        })
    })
  }

  async function gated(edge: BrokerGate, request: Request, server: SocketReader | undefined, respondAsync: boolean): Promise<Answer> {
    const limited = await edge.limit(request, server)
    if (limited) return refused(limited)
    const body = await readJsonBody(request, limits)
    const refusal = edge.admit()
    if (refusal) return refused(refusal)
    // An order answered 202 keeps its place under the in-flight cap until it settles.
    if (respondAsync) return settleAsync(body, () => edge.leave())
    try {
      return await settle(body)
    } finally {
      edge.leave()
    }
  }

  async function answer(request: Request, server: SocketReader | undefined): Promise<Answer> {
    try {
      const respondAsync = prefersRespondAsync(request.headers.get('prefer'))
      if (gate) return await gated(gate, request, server, respondAsync)
      const body = await readJsonBody(request, limits)
      return await (respondAsync ? settleAsync(body, () => {}) : settle(body))
    } catch (error) {
      return failed(asRelayError(context, error))
    }
  }

  function headersOf(request: Request, reply: Answer): Record<string, string> {
    // Stopping: the answer tells a keep-alive client its connection ends (requestDrain.ts).
    const closing = observer.closing ? { connection: 'close' } : undefined
    if (!gate) return reply.headers || closing ? { ...json, ...reply.headers, ...closing } : json
    return { ...json, ...gate.headers(request.headers.get('origin')), ...reply.headers, ...closing }
  }

  return async function postBroker(request, server) {
    const began = observer.begin()
    // `answer` never throws: every failure is an answer.
    const reply = await answer(request, server)
    const response = new Response(JSON.stringify(reply.body), { status: reply.status, headers: headersOf(request, reply) })
    observer.end(began, 'POST', '/broker', reply.status, reply.code)
    return response
  }
}

/**
 * True when a `Prefer` header (RFC 7240) asks for `respond-async`: a comma-separated
 * list of preferences, each a token with an optional value and parameters, matched
 * case-insensitively; other preferences (`wait=10`, `return=minimal`) are ignored.
 *
 * @example
 * prefersRespondAsync('respond-async, wait=10') // true
 * prefersRespondAsync(null) // false
 */
export function prefersRespondAsync(header: string | null): boolean {
  if (!header) return false
  return header.split(',').some((preference) => preference.split(/[;=]/, 1)[0]!.trim().toLowerCase() === 'respond-async')
}
