// 10,000 generated bad bodies (seeded, reproducible): invalid JSON, wrong types,
// missing and extra fields, numbers past uint256, negative and fractional numbers,
// huge bodies, deep nesting, wrong content types, non-UTF-8. Each must be answered
// 400 MALFORMED_ORDER with the RelayFailure shape, never a 500, and no answer may
// carry any distinctive token planted in its body. FUZZ_SEED=n reruns another seed.
import { expect, test } from 'bun:test'
import type { Devnet } from '../../src/devnet/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { type TestRelayer, useDevnetWithRelayer } from '../helpers/relayer.ts'
import { createBodyGenerator, type FuzzCase } from './support/bodies.ts'
import { createRandom } from '../helpers/random.ts'

const seed = Number(process.env.FUZZ_SEED ?? 0x0dd5eed)
const count = 10_000
const concurrency = 32

let devnet: Devnet
let relayer: TestRelayer

useDevnetWithRelayer((startedDevnet, startedRelayer) => {
  devnet = startedDevnet
  relayer = startedRelayer
})

type Failure = { index: number; label: string; status: number; answer: string }

async function send(fuzz: FuzzCase): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = fuzz.contentType === undefined ? {} : { 'content-type': fuzz.contentType }
  const response = await fetch(`${relayer.url}/broker`, { method: 'POST', headers, body: fuzz.body })
  return { status: response.status, text: await response.text() }
}

test(`${count} malformed bodies (seed ${seed}) → only 400 MALFORMED_ORDER, nothing echoed`, async () => {
  const base = await signed(devnet, allocationOrder(devnet))
  // The unbroken body is accepted (a settled order), so every 400 below is the breakage's doing.
  expect((await relayer.post(base)).status).toBe(200)

  const next = createBodyGenerator(base, createRandom(seed))
  const cases = Array.from({ length: count }, next)
  const failures: Failure[] = []
  const statuses = new Map<number, number>()
  const kinds = new Map<string, number>()
  let cursor = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (cursor < cases.length) {
        const index = cursor++
        const fuzz = cases[index]!
        const kind = fuzz.label.split(':')[0]!
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
        const { status, text } = await send(fuzz)
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
        let body: unknown
        try {
          body = JSON.parse(text)
        } catch {}
        const shaped =
          typeof body === 'object' &&
          body !== null &&
          Object.keys(body).sort().join() === 'code,message,ok' &&
          (body as { ok: unknown }).ok === false &&
          (body as { code: unknown }).code === 'MALFORMED_ORDER' &&
          typeof (body as { message: unknown }).message === 'string'
        const lower = text.toLowerCase()
        const echoed = fuzz.tokens.filter((token) => lower.includes(token.toLowerCase()))
        if (status !== 400 || !shaped || echoed.length > 0 || text.length > 1_000) {
          failures.push({ index, label: fuzz.label, status, answer: `${echoed.length ? `echoes ${echoed.join(', ')}: ` : ''}${text.slice(0, 300)}` })
        }
      }
    }),
  )
  // One example per kind of breakage that failed, with how often it failed.
  const byKind = new Map<string, Failure & { times: number }>()
  for (const failure of failures) {
    const kind = failure.label.split(':')[0]!
    const seen = byKind.get(kind)
    byKind.set(kind, seen ? { ...seen, times: seen.times + 1 } : { ...failure, times: 1 })
  }
  expect([...byKind.values()]).toEqual([])
  expect(Object.fromEntries(statuses)).toEqual({ 400: count })
  // Every kind of breakage was exercised many times.
  expect([...kinds.keys()].sort()).toEqual([
    'bad value',
    'chain not served',
    'deep nesting',
    'extra field',
    'huge body',
    'invalid JSON',
    'missing fields',
    'negative or fractional',
    'not UTF-8',
    'not an object',
    'number past uint256',
    'wrong content type',
    'wrong type',
  ])
  for (const [kind, seen] of kinds) expect({ kind, many: seen > 500 }).toEqual({ kind, many: true })
  // The relayer is still well: the access log holds one line per request and no error.
  expect(relayer.logger.lines.filter((line) => line.startsWith('error'))).toEqual([])
}, 120_000)
