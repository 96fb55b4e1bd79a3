// The least relayer (scripts/bench/servers/leastRelayer.ts), the floor the relayer-CPU
// row is read against, must really do an order's work: on a real anvil with the real
// contracts, every order answered 200 with its settlement, settled once, and no tx from
// its key reverted. A floor that skipped work would make the comparison worthless.
// It gets out of anvil's automine stall as the relayer does; and a run whose server stops
// answering (as it did, before that) ends at its stall limit instead of hanging the bench.
// With LEAST_SIMULATE=pending (the interval row's side) it checks orders against its own
// txs still in the pool, in batch calls, as the relayer does.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Hex } from 'viem'
import { oneOffContext } from '../../scripts/bench/lib/context.ts'
import { presignOrders } from '../../scripts/bench/lib/orders.ts'
import { relayerRun } from '../../scripts/bench/lib/settlementRuns.ts'
import { prepareWork } from '../../scripts/bench/lib/settlementWork.ts'
import { waitFor } from '../helpers/waitFor.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-least-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The least relayer from source, as a run's executable. */
function leastContext() {
  const exe = join(dir, 'least-relayer')
  // `exec` keeps the pid the run reads CPU from, as the bench's compiled executable does.
  writeFileSync(exe, `#!/bin/sh\nexec '${process.execPath}' '${resolve(import.meta.dir, '../../scripts/bench/servers/leastRelayer.ts')}' "$@"\n`, { mode: 0o755 })
  return oneOffContext(dir, { exe, leastRelayerExe: exe })
}

test('the least relayer settles every order once, answers 200, and its key sends no reverted tx', async () => {
  const context = leastContext()
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

// anvil's automine can leave a ready tx unmined until another tx enters the pool
// (foundry-rs/foundry#10122); a server without a way out then hangs its run. The stall is
// made here by turning automine off: no block comes, as in the stall.
test('a tx left unmined with no block for 2 s is replaced at higher fees, with a warning, and its order settles once', async () => {
  const context = leastContext()
  const work = await prepareWork(context, 'automine', { orders: 1, clients: 1, label: 'least relayer stall test', baseline: false })
  let firstFee: bigint | undefined
  const result = await relayerRun(context, work, {
    alongside: async (_url, devnet) => {
      await devnet.testClient.setAutomine(false)
      // The order's tx enters the pool; its replacement then pays more at the same nonce.
      const replaced = waitFor(
        "the stalled tx's replacement at a higher fee in anvil's pool",
        async () => {
          const pool = (await devnet.publicClient.request({ method: 'txpool_content' as never })) as { pending: Record<string, Record<string, { maxFeePerGas: Hex }>> }
          const [tx] = Object.values(pool.pending).flatMap((byNonce) => Object.values(byNonce))
          if (!tx) return false
          firstFee ??= BigInt(tx.maxFeePerGas)
          return BigInt(tx.maxFeePerGas) > firstFee
        },
        30_000,
        100,
      ).then(async () => {
        await devnet.testClient.mine({ blocks: 1 })
        await devnet.testClient.setAutomine(true)
      })
      return () => replaced
    },
  })
  expect(firstFee).toBeDefined()
  expect(result.statuses).toEqual({ '200': 1 })
  expect(result.settled).toBe(1)
  expect(result.twice).toBe(0)
  expect(result.reverted).toBe(0)
  // The replacement's warning names the key's next nonce: counted as the relayer's are.
  expect(result.nonceErrors).toBe(1)
})

test('a run whose server stops answering ends after its stall limit, the unanswered orders counted as failed, instead of hanging', async () => {
  // A server that answers /info and never answers POST /broker.
  const server = join(dir, 'silent-server.ts')
  writeFileSync(server, `Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.RELAYER_PORT), fetch: (request) => new URL(request.url).pathname === '/info' ? Response.json({ ok: true }) : new Promise(() => {}) })\n`)
  const exe = join(dir, 'silent')
  writeFileSync(exe, `#!/bin/sh\nexec '${process.execPath}' '${server}'\n`, { mode: 0o755 })
  const lines: string[] = []
  const context = { ...oneOffContext(dir, { exe }), log: (line: string) => lines.push(line) }
  const work = await prepareWork(context, 'automine', { orders: 3, clients: 3, label: 'stall test', baseline: false })
  const began = performance.now()
  const result = await relayerRun(context, work, { stallMs: 1_500 })
  expect(performance.now() - began).toBeLessThan(60_000)
  expect(result.statuses).toEqual({ 'no answer (the run stalled)': 3 })
  expect(result.failed).toBe(3)
  expect(lines.some((line) => line.includes('no answer for 1.5 s') && line.includes('0 of 3 orders answered'))).toBe(true)
})

test('at pending, on 0.25 s blocks, it settles every order once in batched simulations, and no tx from its key reverts', async () => {
  const context = { ...leastContext(), countRpc: true }
  const work = await prepareWork(context, 'interval', { orders: 48, clients: 16, label: 'least relayer pending test', baseline: false })
  const result = await relayerRun(context, work, { env: { LEAST_SIMULATE: 'pending' } })
  expect(result.statuses).toEqual({ '200': 48 })
  expect(result.settled).toBe(48)
  expect(result.twice).toBe(0)
  expect(result.reverted).toBe(0)
  expect(result.nonceErrors).toBe(0)
  // Orders that came together went in one call: fewer eth_calls than orders.
  const calls = Number(/eth_call (\d+(?:\.\d+)?)(?:,|$)/.exec(result.rpcPerOrder ?? '')?.[1] ?? Number.NaN)
  expect(calls).toBeGreaterThan(0)
  expect(calls).toBeLessThan(1)
})

// What `pending` is for: an order whose tx still waits in the pool, sent again, is refused
// before any gas is spent. At `latest` (the default) the second copy is sent and reverts.
test('at pending, an order sent again while its tx waits in the pool is refused WOULD_REVERT, and only the first is sent', async () => {
  const context = leastContext()
  const work = await prepareWork(context, 'automine', { orders: 1, clients: 1, label: 'least relayer pending refusal test', baseline: false })
  const answers: Array<{ status: number; code?: string }> = []
  const result = await relayerRun(context, work, {
    env: { LEAST_SIMULATE: 'pending' },
    alongside: async (url, devnet) => {
      const [request] = await presignOrders(devnet, 1, { label: 'pending refusal' })
      const post = () =>
        fetch(`${url}/broker`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) }).then(async (response) => ({
          status: response.status,
          code: ((await response.json()) as { code?: string }).code,
        }))
      await devnet.testClient.setAutomine(false)
      const first = post()
      await waitFor(
        "the order's tx in anvil's pool",
        async () => Number(((await devnet.publicClient.request({ method: 'txpool_status' as never })) as { pending: Hex }).pending) === 1,
        10_000,
        20,
      )
      answers.push(await post())
      await devnet.testClient.mine({ blocks: 1 })
      await devnet.testClient.setAutomine(true)
      answers.push(await first)
      return async () => {}
    },
  })
  expect(answers).toEqual([{ status: 400, code: 'WOULD_REVERT' }, { status: 200, code: undefined }])
  // The work's own order settled after, and no tx of the key reverted: the copy was never sent.
  expect(result.statuses).toEqual({ '200': 1 })
  expect(result.reverted).toBe(0)
})
