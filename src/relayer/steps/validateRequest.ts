import * as v from 'valibot'
import { describeIssues, type RelayRequest, RelayRequestSchema } from '../../wire/index.ts'
import type { RelayerContext } from '../context.ts'
import { RelayError } from '../errors.ts'

/**
 * Step 1: the body must be a RelayRequest for the chain this relayer serves.
 * @returns the request, or a RelayError MALFORMED_ORDER naming each bad field (never
 * its value): returned, not thrown, like every refusal before any I/O (see checkRequest).
 */
export function validateRequest(context: Pick<RelayerContext, 'config'>, body: unknown): RelayRequest | RelayError {
  // valibot's object schemas accept arrays (then report every field missing): say what is wrong.
  if (Array.isArray(body)) return new RelayError('MALFORMED_ORDER', 'malformed request: body must be a JSON object')
  const parsed = v.safeParse(RelayRequestSchema, body)
  if (!parsed.success) return new RelayError('MALFORMED_ORDER', `malformed request: ${describeIssues(parsed.issues)}`)
  const request = parsed.output
  if (request.chainId !== context.config.chainId) {
    return new RelayError(
      'MALFORMED_ORDER',
      `chainId is not one this relayer serves (it serves ${context.config.chainId}; see GET /info)`,
    )
  }
  return request
}
