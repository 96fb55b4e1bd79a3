// The bench's flood: MALFORMED_ORDER bodies posted to /broker at a steady rate, from a
// lean client in its own Bun process (lib/steadyClient.ts, started by lib/steadyLoad.ts).
// Shared by the flood rows and `scripts/profile-settlement.ts --flood`.
import type { RelayRequest } from '../../../src/wire/index.ts'
import { startSteadyLoad } from './steadyLoad.ts'

/** The flood's and the probe's bound: no run of 2,000 orders comes near it. */
export const floodMaxSeconds = 120

/** A signed request made malformed (`amount` "10.5"): refused by the first check, before any I/O. */
export const malformedBody = (request: RelayRequest): string => JSON.stringify({ ...request, order: { ...request.order, amount: '10.5' } })

/**
 * Starts flooding `url`'s POST /broker with `body` at `rate` req/s over 64 connections,
 * spread over each second (steadyClient.ts), or, with `generator: 'autocannon'`, as
 * autocannon sends it (each connection's share of a second in one burst); `stop()` gives its summary.
 */
export const startFlood = (url: string, rate: number, body: string, generator: 'steady' | 'autocannon' = 'steady') =>
  startSteadyLoad({
    url: `${url}/broker`,
    rate,
    connections: 64,
    amount: rate * floodMaxSeconds,
    seconds: floodMaxSeconds,
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
    generator,
  })
