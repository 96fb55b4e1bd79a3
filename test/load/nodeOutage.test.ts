// The node becomes unreachable in the middle of a load and comes back with the same
// state (a TCP proxy in front of anvil is cut, then restored): every request still
// gets a 200 or a SPEC.md 7.1 code in time, the relayer process never exits, orders
// settle again afterwards, every order answered 200 is on chain, none settles twice.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Hex } from 'viem'
import { brokeredEvent } from '../../src/chain/index.ts'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { relayErrorCodes, type RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startRelayerProcess } from './support/relayerProcess.ts'
import { startTcpProxy, type TcpProxy } from './support/tcpProxy.ts'

const receiptTimeoutMs = 5_000
const clients = 16

let devnet: Devnet
let proxy: TcpProxy
let relayer: Awaited<ReturnType<typeof startRelayerProcess>>

beforeAll(async () => {
  devnet = await startDevnet({ vaults: [{ vaultId: 1n, slots: 5_000 }] })
  proxy = await startTcpProxy({ host: '127.0.0.1', port: devnet.port })
  relayer = await startRelayerProcess(devnet, {
    RELAYER_RPC_URL: proxy.url,
    RELAYER_RECEIPT_TIMEOUT_MS: String(receiptTimeoutMs),
    RELAYER_RECEIPT_POLL_MS: '20',
  })
}, 60_000)

afterAll(async () => {
  await relayer?.stop()
  await proxy?.stop()
  await devnet?.stop()
})

type Phase = 'before' | 'outage' | 'after'
type Answer = { orderHash: Hex; phase: Phase; status: number; code: string; txHash?: Hex; ms: number }

/**
 * `orderCount` orders from `clients` concurrent clients; once 50 have settled the
 * node becomes unreachable for `outageMs`, then comes back. A client retries an
 * order answered 502 UPSTREAM_RPC 100 ms later, as a client library user would.
 */
async function loadThroughOutage(orderCount: number, outageMs: number) {
  const requests: RelayRequest[] = await Promise.all(Array.from({ length: orderCount }, () => signed(devnet, allocationOrder(devnet))))
  const answers: Answer[] = []
  const settled = new Map<Hex, Hex>() // orderHash → txHash of its first 200
  const queue = [...requests]
  let phase: Phase = 'before'
  const deadline = Date.now() + 40_000

  /** One POST /broker, its answer recorded with the phase it was sent in; a 502 is retried 100 ms later. */
  async function send(request: RelayRequest) {
    const sentIn = phase
    const started = performance.now()
    const response = await fetch(`${relayer.url}/broker`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(receiptTimeoutMs + 15_000),
    })
    const body = (await response.json()) as { code?: string; txHash?: Hex }
    const orderHash = request.orderHash as Hex
    const answer: Answer = { orderHash, phase: sentIn, status: response.status, code: body.code ?? 'OK', txHash: body.txHash, ms: performance.now() - started }
    answers.push(answer)
    if (response.status === 200) {
      if (!settled.has(orderHash)) settled.set(orderHash, body.txHash as Hex)
    } else if (body.code === 'UPSTREAM_RPC') {
      setTimeout(() => queue.push(request), 100)
    }
    return answer
  }

  async function client() {
    for (;;) {
      const request = queue.shift()
      if (!request) {
        if (settled.size === orderCount || Date.now() > deadline) return
        await Bun.sleep(20)
        continue
      }
      await send(request)
    }
  }

  const brokeredBefore = await brokeredLogs()
  const load = Promise.all(Array.from({ length: clients }, client))
  while (answers.filter((answer) => answer.status === 200).length < 50) await Bun.sleep(5)
  await proxy.cut()
  phase = 'outage'
  // An order sent while the node is unreachable cannot be simulated: 502 at once, never a
  // wait (the clients' own orders may all be riding the outage out in their receipt waits).
  const probe = queue.shift()
  if (!probe) throw new Error('no order left to send during the outage')
  const felt = await send(probe)
  await Bun.sleep(Math.max(0, outageMs - felt.ms))
  await proxy.restore()
  phase = 'after'
  await load

  // Every answer is a 200 or a SPEC.md 7.1 code with its own status: never a 500.
  const kinds = new Set(answers.map((answer) => `${answer.status} ${answer.code}`))
  for (const kind of kinds) {
    const [status, code] = kind.split(' ') as [string, string]
    if (code === 'OK') expect(status).toBe('200')
    else expect(relayErrorCodes[code as keyof typeof relayErrorCodes]?.status as number | undefined).toBe(Number(status))
  }
  // The outage was felt (the order sent into it got 502), and no answer waited past the receipt timeout (plus a margin).
  expect({ status: felt.status, code: felt.code }).toEqual({ status: 502, code: 'UPSTREAM_RPC' })
  expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(receiptTimeoutMs + 3_000)
  // Orders settle again once the node is back, and in the end every order has settled.
  expect(answers.filter((answer) => answer.phase === 'after' && answer.status === 200).length).toBeGreaterThan(0)
  expect(settled.size).toBe(orderCount)
  // The relayer process never exited and still answers.
  expect(relayer.child.exitCode).toBeNull()
  expect((await fetch(`${relayer.url}/info`)).status).toBe(200)

  // On chain: exactly one Brokered log per order, in the tx that every 200 for it named.
  const logs = (await brokeredLogs()).slice(brokeredBefore.length)
  const onChain = new Map<string, Hex[]>()
  for (const log of logs) {
    const key = log.args.orderHash!.toLowerCase()
    onChain.set(key, [...(onChain.get(key) ?? []), log.transactionHash])
  }
  expect(logs).toHaveLength(orderCount)
  for (const request of requests) expect(onChain.get(request.orderHash!.toLowerCase())).toEqual([settled.get(request.orderHash as Hex)!])
  for (const answer of answers.filter((each) => each.status === 200)) expect(answer.txHash).toBe(settled.get(answer.orderHash)!)
  return answers
}

const brokeredLogs = () => devnet.publicClient.getLogs({ address: devnet.manifest.contracts.broker, event: brokeredEvent, fromBlock: 0n })

test('anvil unreachable for 3 s (less than the receipt timeout) in the middle of 200 orders from 16 clients, then back', async () => {
  const answers = await loadThroughOutage(200, 3_000)
  expect(answers.filter((answer) => answer.phase === 'before' && answer.status === 200).length).toBeGreaterThanOrEqual(50)
}, 60_000)

test('anvil unreachable for longer than the receipt timeout: waits give up with 502 in time, retries settle once', async () => {
  await loadThroughOutage(120, receiptTimeoutMs + 1_500)
}, 60_000)
