import { expect, test } from 'bun:test'
import { backgroundRefresh, createMemoryLogger } from '../../src/shared/index.ts'

test('an outage is logged once when it starts and once when it ends, not on every tick', async () => {
  const logger = createMemoryLogger()
  const outcomes = [true, false, false, false, true, true]
  let calls = 0
  const ticker = backgroundRefresh(async () => {
    const ok = outcomes[calls++] ?? true
    if (!ok) throw new Error('node down')
  }, { everyMs: 5, logger, what: 'chain head read' })
  ticker.start()
  while (calls < outcomes.length) await Bun.sleep(5)
  ticker.stop()
  await Bun.sleep(10)
  const after = calls
  await Bun.sleep(20)
  expect(calls).toBe(after)
  expect(logger.lines).toEqual([
    'warn: chain head read failed; keeping the last value and retrying every 5 ms',
    'chain head read works again',
  ])
})
