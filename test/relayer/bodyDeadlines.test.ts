// The deadlines of the bodies being read, kept by one timer: a body that arrives in
// time is never refused, one that does not is refused soon after its deadline.
import { expect, test } from 'bun:test'
import { createBodyDeadlines } from '../../src/relayer/http/bodyDeadlines.ts'

const late = () => new Error('late')

test('reads that finish in time keep their value; a read past its deadline is given up within a sweep of it', async () => {
  const deadlines = createBodyDeadlines(200)
  const quick = await Promise.all(Array.from({ length: 100 }, (_, i) => deadlines.within(Promise.resolve(i), late)))
  expect(quick).toEqual(Array.from({ length: 100 }, (_, i) => i))
  const started = performance.now()
  const never = deadlines.within(new Promise<never>(() => {}), late)
  await expect(never).rejects.toThrow('late')
  const waited = performance.now() - started
  expect(waited).toBeGreaterThanOrEqual(195)
  // Deadline plus one sweep (a tenth of it here, 20 ms), with room for a busy machine.
  expect(waited).toBeLessThan(200 + 20 + 500)
})

test('a read that fails is the read\'s failure, not the deadline\'s', async () => {
  const deadlines = createBodyDeadlines(10_000)
  await expect(deadlines.within(Promise.reject(new Error('connection reset')), late)).rejects.toThrow('connection reset')
})
