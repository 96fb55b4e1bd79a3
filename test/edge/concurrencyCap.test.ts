import { describe, expect, test } from 'bun:test'
import { Hono } from 'hono'
import { concurrencyCap } from '../../src/relayer/edge/concurrencyCap.ts'

/** An app whose handler waits until the test releases it. */
function slowApp(max: number) {
  const gates: Array<() => void> = []
  const app = new Hono()
  app.use(concurrencyCap({ max }))
  app.post('/broker', async (c) => {
    await new Promise<void>((resolve) => gates.push(resolve))
    if (c.req.header('x-fail')) throw new Error('boom')
    return c.json({ ok: true })
  })
  app.onError((_error, c) => c.json({ ok: false }, 500))
  const post = (headers: Record<string, string> = {}) => app.request('/broker', { method: 'POST', headers })
  return { post, gates, releaseAll: () => gates.splice(0).forEach((release) => release()) }
}

describe('concurrencyCap', () => {
  test('over the cap: 429 SERVER_BUSY at once, the rest complete', async () => {
    const { post, gates, releaseAll } = slowApp(2)
    const first = post()
    const second = post()
    await Bun.sleep(5)
    expect(gates.length).toBe(2)
    // Answered while both slots are still held: refused at once, not queued behind them.
    const busy = await post()
    expect(busy.status).toBe(429)
    expect(busy.headers.get('retry-after')).toBe('1')
    expect(await busy.json()).toEqual({
      ok: false,
      code: 'SERVER_BUSY',
      message: 'relayer is at its concurrency cap (2 orders in flight); retry shortly or use another relayer',
    })
    expect(gates.length).toBe(2) // the refused request never reached the handler
    releaseAll()
    expect([(await first).status, (await second).status]).toEqual([200, 200])
  })

  test('slots come back when requests finish, failed ones included', async () => {
    const { post, gates, releaseAll } = slowApp(1)
    const failing = post({ 'x-fail': '1' })
    await Bun.sleep(5)
    expect((await post()).status).toBe(429)
    releaseAll()
    expect((await failing).status).toBe(500)
    const next = post()
    await Bun.sleep(5)
    expect(gates.length).toBe(1)
    releaseAll()
    expect((await next).status).toBe(200)
  })
})
