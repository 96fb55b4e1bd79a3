// stdout lines are batched: a burst of access-log lines is one write per turn of the
// event loop (a write per line was a fifth of a rejection's cost under load), in
// order, and nothing waits past the turn or a full buffer.
import { expect, test } from 'bun:test'
import { createLineWriter } from '../../src/cli/lib/lineWriter.ts'

test('a burst of lines is one write, in order, on the next turn', async () => {
  const writes: string[] = []
  const out = createLineWriter((text) => writes.push(text))
  for (let i = 0; i < 1_000; i++) out.line(`POST /broker 400 MALFORMED_ORDER ${i}`)
  expect(writes).toEqual([])
  await new Promise((resolve) => setImmediate(resolve))
  expect(writes).toHaveLength(1)
  expect(writes[0]!.split('\n')).toEqual([...Array.from({ length: 1_000 }, (_, i) => `POST /broker 400 MALFORMED_ORDER ${i}`), ''])
})

test('a full buffer is written at once; flush writes what waits; nothing is written twice', async () => {
  const writes: string[] = []
  const out = createLineWriter((text) => writes.push(text), { maxBuffered: 100 })
  out.line('x'.repeat(60))
  expect(writes).toEqual([])
  out.line('y'.repeat(60))
  expect(writes).toEqual([`${'x'.repeat(60)}\n${'y'.repeat(60)}\n`])
  out.line('z')
  out.flush()
  expect(writes.at(-1)).toBe('z\n')
  await new Promise((resolve) => setImmediate(resolve))
  expect(writes).toHaveLength(2)
})
