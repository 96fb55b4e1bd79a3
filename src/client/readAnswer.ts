import * as v from 'valibot'
import { edgeErrorCodeList, edgeErrorCodes, relayErrorCodeList, relayErrorCodes, RevertSchema, RouteFailureSchema } from '../wire/index.ts'
import { parseRetryAfter } from './retryAfter.ts'
import { SubmitError } from './SubmitError.ts'

/** A RelayFailure (SPEC.md 2.6) or an edge rejection (7.2): the same shape, two code unions. */
const FailureSchema = v.object({
  ok: v.literal(false),
  code: v.picklist([...new Set([...relayErrorCodeList, ...edgeErrorCodeList])], 'not a relayer or edge code'),
  message: v.string(),
})

/**
 * Reads a relayer's answer: a 200 whose JSON matches `schema` is the result; a
 * RelayFailure or edge rejection with the status its code belongs to is a
 * SubmitError with that code; anything else (HTML, wrong JSON, a status that does
 * not fit the code, the relayer's own 404 or 405 for a path it does not serve) is a
 * SubmitError `BAD_RESPONSE`.
 *
 * @example
 * const info = await readAnswer(await fetch(`${url}/info`), RelayerInfoSchema, 'GET /info')
 */
export async function readAnswer<const TSchema extends v.GenericSchema>(
  response: Response,
  schema: TSchema,
  what: string,
): Promise<v.InferOutput<TSchema>> {
  const { status } = response
  let text: string
  try {
    text = await response.text()
  } catch (error) {
    throw new SubmitError('NETWORK', `${what}: the connection failed while reading the answer`, { status, cause: error })
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    const type = response.headers.get('content-type') ?? 'no content type'
    throw new SubmitError('BAD_RESPONSE', `${what}: answered ${status} with a body that is not JSON (${type}); is this URL a relayer?`, { status })
  }

  if (status === 200) {
    const parsed = v.safeParse(schema, body)
    if (parsed.success) return parsed.output
    throw new SubmitError('BAD_RESPONSE', `${what}: answered 200 with unexpected JSON (${describe(parsed.issues)})`, { status })
  }

  // A relayer's own 404 or 405: the URL or its path is not one this relayer serves.
  const route = v.safeParse(RouteFailureSchema, body)
  if (route.success && (status === 404 || status === 405)) {
    throw new SubmitError('BAD_RESPONSE', `${what}: the server answered ${status} ${route.output.code} (${route.output.message}); check the relayer URL: it should be the relayer's root, without a path`, { status })
  }
  const failure = v.safeParse(FailureSchema, body)
  if (!failure.success) {
    throw new SubmitError('BAD_RESPONSE', `${what}: answered ${status} with JSON that is not a relayer failure (${describe(failure.issues)})`, { status })
  }
  const { code, message } = failure.output
  const expected: number[] = []
  if (code in relayErrorCodes) expected.push(relayErrorCodes[code as keyof typeof relayErrorCodes].status)
  if (code in edgeErrorCodes) expected.push(edgeErrorCodes[code as keyof typeof edgeErrorCodes].status)
  if (!expected.includes(status)) {
    throw new SubmitError('BAD_RESPONSE', `${what}: answered ${status} with code ${code}, which belongs to HTTP ${expected.join(' or ')}`, { status })
  }
  // A revert the schema does not read is left out; the message still says it.
  const revert = v.safeParse(RevertSchema, (body as { revert?: unknown }).revert)
  throw new SubmitError(code, message, { status, retryAfter: parseRetryAfter(response.headers.get('retry-after')), revert: revert.success ? revert.output : undefined })
}

// Names the failing fields and what was expected; never quotes the received values.
function describe(issues: readonly v.BaseIssue<unknown>[]): string {
  const parts = new Set<string>()
  for (const issue of issues) {
    const path = (issue.path ?? []).map((item) => String(item.key)).join('.') || 'body'
    // valibot's default messages quote the received value; the wire schemas' own messages do not.
    const what = issue.input === undefined ? 'missing' : issue.message.includes('eceived') ? `expected ${issue.expected ?? 'a valid value'}` : issue.message
    parts.add(`${path}: ${what}`)
    if (parts.size >= 4) break
  }
  return [...parts].join('; ')
}
