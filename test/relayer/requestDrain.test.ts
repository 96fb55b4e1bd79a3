// The SIGTERM drain's count of requests being handled: idle at once when none is,
// else once the last one leaves, however many arrived while it waited.
import { expect, test } from 'bun:test'
import { createRequestDrain } from '../../src/relayer/http/requestDrain.ts'

test('idle resolves at once with no request, and only when the last one leaves', async () => {
  const drain = createRequestDrain()
  await drain.idle()
  drain.enter()
  drain.enter()
  let idle = false
  const waiting = drain.idle().then(() => (idle = true))
  drain.leave()
  await Promise.resolve()
  expect(idle).toBe(false)
  // One arriving while draining is waited for too.
  drain.enter()
  drain.leave()
  await Promise.resolve()
  expect(idle).toBe(false)
  expect(drain.active).toBe(1)
  drain.leave()
  await waiting
  expect(idle).toBe(true)
  expect(drain.active).toBe(0)
})
