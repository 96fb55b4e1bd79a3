/**
 * Every code a relayer answers, with its HTTP status and the fix a user should try
 * (SPEC.md 7.1 and 7.2). One table: the routes, the client library and the CLI read it.
 */
export const relayErrorCodes = {
  MALFORMED_ORDER: {
    status: 400,
    fix: 'Check field types: feeBps is uint16, amount and nonce are decimal strings.',
  },
  ORDERHASH_MISMATCH: { status: 400, fix: 'Re-encode the order.' },
  FEE_BELOW_FLOOR: {
    status: 402,
    fix: 'Raise feeBps or choose another relayer (see GET /info).',
  },
  WOULD_REVERT: { status: 422, fix: 'Change what the decoded revert in the message names (docs/routes.md lists a fix per known revert).' },
  AUTH_EXPIRED: { status: 422, fix: 'Re-sign with a fresh window.' },
  INSUFFICIENT_RELAYER_GAS: { status: 503, fix: 'Try another relayer or run your own.' },
  UPSTREAM_RPC: { status: 502, fix: 'Retry or try another relayer.' },
} as const

export type RelayErrorCode = keyof typeof relayErrorCodes

/** Codes only the hardened edge answers (SPEC.md 7.2); a separate union. */
export const edgeErrorCodes = {
  RATE_LIMITED: { status: 429, fix: 'Wait for the Retry-After delay, then retry.' },
  SERVER_BUSY: { status: 429, fix: 'Retry shortly or use another relayer.' },
  INSUFFICIENT_RELAYER_GAS: { status: 503, fix: 'Try another relayer or run your own.' },
} as const

export type EdgeErrorCode = keyof typeof edgeErrorCodes

export const relayErrorCodeList = Object.keys(relayErrorCodes) as [RelayErrorCode, ...RelayErrorCode[]]
export const edgeErrorCodeList = Object.keys(edgeErrorCodes) as [EdgeErrorCode, ...EdgeErrorCode[]]

/**
 * Codes of the relayer's HTTP layer itself, before any route: a path no route serves, or
 * a method the path's routes do not answer (with `Allow` naming those they do).
 */
export const routeErrorCodes = {
  NOT_FOUND: { status: 404, fix: 'Check the path against the routes GET /api/openapi.json lists (no trailing slash).' },
  METHOD_NOT_ALLOWED: { status: 405, fix: 'Use one of the methods the Allow header lists.' },
} as const

export type RouteErrorCode = keyof typeof routeErrorCodes

export const routeErrorCodeList = Object.keys(routeErrorCodes) as [RouteErrorCode, ...RouteErrorCode[]]
