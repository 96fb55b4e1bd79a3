// The least relayer (scripts/bench/servers/leastRelayer.ts), the floor the relayer-CPU
// row is read against, must really do an order's work: on a real anvil with the real
// contracts, every order answered 200 with its settlement, settled once, and no tx from
// its key reverted. A floor that skipped work would make the comparison worthless.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { oneOffContext } from '../../scripts/bench/lib/context.ts'
import { relayerRun } from '../../scripts/bench/lib/settlementRuns.ts'
import { prepareWork } from '../../scripts/bench/lib/settlementWork.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-least-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('the least relayer settles every order once, answers 200, and its key sends no reverted tx', async () => {
  const exe = join(dir, 'least-relayer')
  // `exec` keeps the pid the run reads CPU from, as the bench's compiled executable does.
  writeFileSync(exe, `#!/bin/sh\nexec '${process.execPath}' '${resolve(import.meta.dir, '../../scripts/bench/servers/leastRelayer.ts')}' "$@"\n`, { mode: 0o755 })
  const context = oneOffContext(dir, { exe, leastRelayerExe: exe })
  const work = await prepareWork(context, 'automine', { orders: 40, clients: 8, label: 'least relayer test', baseline: false })
  const result = await relayerRun(context, work)
  expect(result.statuses).toEqual({ '200': 40 })
  expect(result.settled).toBe(40)
  expect(result.twice).toBe(0)
  expect(result.reverted).toBe(0)
  expect(result.nonceErrors).toBe(0)
  // Its CPU was read from its own process: a floor of zero would mean the wrong pid.
  expect(result.relayerCpuPer1000).toBeGreaterThan(0)
})
