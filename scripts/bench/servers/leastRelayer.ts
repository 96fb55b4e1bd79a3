// The least a relayer does per order, as one small server, to measure what that least
// costs in CPU under the bench's own settlement load: a side of `bun run bench`'s
// settlement runs (an information row beside the relayer-CPU row), and
// `scripts/profile-settlement.ts --subject least`. It is not a relayer: no claims, no cool-downs, no replays, no gas
// breaker, no metrics, no retries; one order per consumer is assumed and anything
// unexpected is answered 502. What it keeps is the work the specification requires of
// every order, done the cheapest way at hand:
//   the request read and checked (the relayer's own three checks) and an access line;
//   one `eth_call` of the order, with the fee fields the tx will carry, in JSON-RPC
//   batches over one kept-alive fetch (the baselines' lean client, lib/rpc.ts);
//   the signed tx written to SQLite and synced to disk before broadcast, a batch per sync;
//   the signature on the main thread (no worker messages), viem's signTransaction;
//   `eth_sendRawTransaction` in batches; the mined txs found once per pushed head from
//   the block's tx hashes and the range's logs; the outcome written back; the answer.
// And the one recovery a run on anvil needs: a tx at the key's next nonce that anvil's
// automine leaves unmined (foundry-rs/foundry#10122) is replaced at higher fees after
// 2 s without a block, with a warning, as the relayer's nonce keeper does; without it,
// every later order waits behind that tx for good.
// Reads the relayer's variables (RELAYER_PK, RELAYER_CHAIN_ID, RELAYER_RPC_URL,
// RELAYER_WS_URL, RELAYER_BROKER, RELAYER_PORT, RELAYER_DB); arguments are ignored.
// LEAST_SIMULATE=pending simulates at `pending` as the relayer does, in batch calls
// (leastPendingSimulator.ts), for interval-mined chains; by default each order is one
// `eth_call` at `latest` (below).
// With RELAYER_REDIS_URL, it is the least a replica does besides: each order's claim taken
// in Redis before its simulation (`SET NX PX`) and, once mined, its outcome written and
// its claim released (pipelined, one round trip) before the answer: no epoch, no fencing,
// no renewals, no heartbeat.
import { RedisClient } from 'bun'
import { Database } from 'bun:sqlite'
import { fdatasync, openSync } from 'node:fs'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createLineWriter } from '../../../src/cli/lib/lineWriter.ts'
import { encodeBrokerCall } from '../../../src/chain/index.ts'
import { RelayError } from '../../../src/relayer/errors.ts'
import { readRelayerConfig } from '../../../src/relayer/index.ts'
import { type CheckedRequest, checkSpecSteps } from '../../../src/relayer/pipeline.ts'
import type { RelayerContext } from '../../../src/relayer/context.ts'
import { decodeSettlement } from '../../../src/relayer/steps/decodeSettlement.ts'
import { createLogger } from '../../../src/shared/index.ts'
import { keccak256, keccakReady } from '../../../src/wire/index.ts'
import { rpc, rpcBatchAnswers } from '../lib/rpc.ts'
import { createLeastPendingSimulator } from './leastPendingSimulator.ts'

type Log = { address: Hex; topics: Hex[]; data: Hex; transactionHash: Hex }

const config = readRelayerConfig(process.env)
const account = privateKeyToAccount(process.env.RELAYER_PK as Hex)
const { broker, chainId } = config
const rpcUrl = config.rpcUrl
const out = createLineWriter((text) => process.stdout.write(text))
const logger = createLogger((line) => out.line(line))
const checksContext = { config } as RelayerContext // the three checks read only the config
const jsonHeaders = { 'content-type': 'application/json' }

/** Items queued in one turn of the event loop go out together, at most `max` at a time. */
function batched<T, R>(flush: (items: T[]) => Promise<R[]>, max = 64): (item: T) => Promise<R> {
  let queue: Array<{ item: T; resolve: (value: R) => void; reject: (error: unknown) => void }> = []
  const run = () => {
    const taken = queue
    queue = []
    for (let start = 0; start < taken.length; start += max) {
      const chunk = taken.slice(start, start + max)
      flush(chunk.map((each) => each.item)).then(
        (results) => chunk.forEach((each, index) => each.resolve(results[index]!)),
        (error) => chunk.forEach((each) => each.reject(error)),
      )
    }
  }
  return (item) =>
    new Promise<R>((resolve, reject) => {
      if (queue.push({ item, resolve, reject }) === 1) setImmediate(run)
    })
}

// The journal: each signed tx durable before it is broadcast, its outcome after.
const journalPath = config.journalPath ?? 'least-relayer.db'
const db = new Database(journalPath, { create: true, strict: true })
db.exec('PRAGMA journal_mode = WAL')
db.exec('PRAGMA synchronous = NORMAL')
db.exec('CREATE TABLE IF NOT EXISTS slots (nonce INTEGER PRIMARY KEY, order_hash TEXT NOT NULL, tx_hash TEXT NOT NULL, raw TEXT NOT NULL, status TEXT NOT NULL, outcome TEXT)')
const insertSlot = db.query("INSERT INTO slots (nonce, order_hash, tx_hash, raw, status) VALUES (?, ?, ?, ?, 'pending')")
const resolveSlot = db.query('UPDATE slots SET status = ?, outcome = ? WHERE nonce = ?')
type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
type Slot = { nonce: number; orderHash: Hex; txHash: Hex; raw: Hex; adapter: Hex; data: Hex; gas: bigint; fees: Fees; sentAt: number; /** The hashes of the txs it replaced. */ replaced?: Hex[] }
const recordAll = db.transaction((slots: Slot[]) => {
  for (const slot of slots) insertSlot.run(slot.nonce, slot.orderHash, slot.txHash, slot.raw)
})
const replaceSlot = db.query('UPDATE slots SET tx_hash = ?, raw = ? WHERE nonce = ?')
const resolveAll = db.transaction((rows: Array<[status: string, outcome: string, nonce: number]>) => {
  for (const row of rows) resolveSlot.run(...row)
})
let walFd: number | undefined
const durable = () =>
  new Promise<void>((resolve, reject) => {
    walFd ??= openSync(`${journalPath}-wal`, 'r')
    fdatasync(walFd, (error) => (error ? reject(error) : resolve()))
  })

await keccakReady
let nonce = Number(await rpc<Hex>(rpcUrl, 'eth_getTransactionCount', [account.address, 'pending']))
const tip = BigInt(await rpc<Hex>(rpcUrl, 'eth_maxPriorityFeePerGas'))
const latest = await rpc<{ number: Hex; baseFeePerGas: Hex }>(rpcUrl, 'eth_getBlockByNumber', ['latest', false])
let baseFee = BigInt(latest.baseFeePerGas)
let looked = BigInt(latest.number)
const fees = () => ({ maxFeePerGas: baseFee * 2n + tip, maxPriorityFeePerGas: tip })
const hex = (value: bigint | number) => `0x${value.toString(16)}`

// One gas limit per adapter (its keys: the adapters whose logs the looks read), estimated once, with a margin (the orders of a run are alike).
const gasLimits = new Map<Hex, Promise<bigint>>()
const gasFor = (adapter: Hex, data: Hex) => {
  let limit = gasLimits.get(adapter)
  if (!limit) {
    limit = rpc<Hex>(rpcUrl, 'eth_estimateGas', [{ from: account.address, to: broker, data }]).then((gas) => (BigInt(gas) * 5n) / 4n)
    gasLimits.set(adapter, limit)
  }
  return limit
}

// Against 'latest': anvil builds a pending block for every call on 'pending', which the
// relayer pays once per batch (all its orders in one call, simulation/batchCall.ts) and
// this server, one call per order, would pay per order, slowing anvil by about a half
// and with it the batches. On automine the relayer's own txs are mined at once anyway.
const simulateAtLatest = batched(async (calls: Array<{ data: Hex; gas: bigint }>) => {
  const { maxFeePerGas, maxPriorityFeePerGas } = fees()
  const answers = await rpcBatchAnswers(
    rpcUrl,
    calls.map(({ data, gas }) => ({
      method: 'eth_call',
      params: [{ from: account.address, to: broker, data, gas: hex(gas), maxFeePerGas: hex(maxFeePerGas), maxPriorityFeePerGas: hex(maxPriorityFeePerGas) }, 'latest'],
    })),
  )
  return answers.map((answer) => answer?.error?.message)
})
const simulateMode = process.env.LEAST_SIMULATE ?? 'latest'
if (simulateMode !== 'latest' && simulateMode !== 'pending') throw new Error(`LEAST_SIMULATE must be latest or pending, not ${simulateMode}`)
const simulate = simulateMode === 'pending' ? createLeastPendingSimulator({ rpcUrl, from: account.address, broker, fees }).simulate : simulateAtLatest

// Mined outcomes by tx hash, waiting for the look that finds them.
const waiting = new Map<Hex, { slot: Slot; resolve: (answer: { status: number; body: string }) => void }>()

// Sends go out one batch at a time, so the nonces reach the node in order.
let sending: Promise<unknown> = Promise.resolve()
const send = batched((orders: Array<{ orderHash: Hex; adapter: Hex; data: Hex; gas: bigint }>) => {
  const done = sending.then(async () => {
    const { maxFeePerGas, maxPriorityFeePerGas } = fees()
    const slots: Slot[] = []
    for (const order of orders) {
      const raw = await account.signTransaction({ type: 'eip1559', chainId, nonce, to: broker, data: order.data, gas: order.gas, maxFeePerGas, maxPriorityFeePerGas })
      const fees = { maxFeePerGas, maxPriorityFeePerGas }
      slots.push({ nonce: nonce++, orderHash: order.orderHash, txHash: keccak256(raw), raw, adapter: order.adapter, data: order.data, gas: order.gas, fees, sentAt: Date.now() })
    }
    recordAll(slots)
    await durable()
    const outcomes = slots.map((slot) => new Promise<{ status: number; body: string }>((resolve) => waiting.set(slot.txHash, { slot, resolve })))
    const answers = await rpcBatchAnswers(
      rpcUrl,
      slots.map((slot) => ({ method: 'eth_sendRawTransaction', params: [slot.raw] })),
    )
    answers.forEach((answer, index) => {
      if (!answer || answer.error) {
        const slot = slots[index]!
        waiting.get(slot.txHash)?.resolve({ status: 502, body: JSON.stringify({ ok: false, code: 'UPSTREAM_RPC', message: answer?.error?.message ?? 'no answer' }) })
        waiting.delete(slot.txHash)
      }
    })
    return outcomes
  })
  sending = done.catch(() => {})
  return done
})

// Once per pushed head: the new blocks' tx hashes and the range's logs, in one batch.
let looking = false
let head = looked
let headAt = Date.now()
async function look() {
  if (looking) return
  looking = true
  try {
    while (head > looked) {
      const from = looked + 1n
      const to = head - from >= 64n ? from + 63n : head
      looked = to
      if (!waiting.size) continue
      const calls: Array<{ method: string; params: unknown[] }> = [{ method: 'eth_getLogs', params: [{ fromBlock: hex(from), toBlock: hex(to), address: [broker, ...gasLimits.keys()] }] }]
      for (let block = from; block <= to; block++) calls.push({ method: 'eth_getBlockByNumber', params: [hex(block), false] })
      const [logsAnswer, ...blocks] = await rpcBatchAnswers(rpcUrl, calls)
      const logsByTx = new Map<Hex, Log[]>()
      for (const log of (logsAnswer?.result ?? []) as Log[]) logsByTx.set(log.transactionHash, [...(logsByTx.get(log.transactionHash) ?? []), log])
      const rows: Array<[string, string, number]> = []
      const answers: Array<() => void> = []
      for (const block of blocks) {
        for (const txHash of ((block?.result as { transactions?: Hex[] } | undefined)?.transactions ?? []) as Hex[]) {
          const entry = waiting.get(txHash)
          if (!entry) continue
          // A replaced slot waits under each of its txs' hashes; whichever was mined answers it.
          waiting.delete(entry.slot.txHash)
          for (const hash of entry.slot.replaced ?? []) waiting.delete(hash)
          const { slot, resolve } = entry
          let answer: { status: number; body: string }
          try {
            answer = { status: 200, body: JSON.stringify(decodeSettlement({ transactionHash: txHash, logs: logsByTx.get(txHash) ?? [] }, broker, slot.adapter, slot.orderHash)) }
          } catch (error) {
            answer = { status: 502, body: JSON.stringify({ ok: false, code: 'WOULD_REVERT', message: (error as Error).message }) }
          }
          rows.push([answer.status === 200 ? 'mined' : 'reverted', answer.body, slot.nonce])
          answers.push(() => resolve(answer))
        }
      }
      if (rows.length) resolveAll(rows)
      for (const answer of answers) answer()
    }
  } finally {
    looking = false
  }
}

const socket = new WebSocket(config.wsUrl ?? rpcUrl.replace(/^http/, 'ws'))
socket.addEventListener('open', () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'eth_subscribe', params: ['newHeads'] })))
socket.addEventListener('message', (event) => {
  const message = JSON.parse(String(event.data)) as { method?: string; params?: { result: { number: Hex; baseFeePerGas: Hex } } }
  if (message.method !== 'eth_subscription' || !message.params) return
  head = BigInt(message.params.result.number)
  headAt = Date.now()
  baseFee = BigInt(message.params.result.baseFeePerGas)
  void look()
})

// anvil's automine stall: no block for 2 s while a tx waits. The lowest waiting slot, if
// still at the key's next nonce, is signed again at +12.5 % fees (what a node takes as a
// replacement), made durable, and sent: a ready tx entering the pool wakes the miner.
const stallMs = 2_000
let replacing = false
setInterval(async () => {
  const now = Date.now()
  if (replacing || waiting.size === 0 || now - headAt < stallMs) return
  replacing = true
  try {
    let lowest: Slot | undefined
    for (const { slot } of waiting.values()) if (!lowest || slot.nonce < lowest.nonce) lowest = slot
    if (!lowest || now - lowest.sentAt < stallMs) return
    const next = Number(await rpc<Hex>(rpcUrl, 'eth_getTransactionCount', [account.address, 'latest']))
    if (lowest.nonce !== next) return
    const bump = (value: bigint) => (value * 9n) / 8n + 1n
    const fees = { maxFeePerGas: bump(lowest.fees.maxFeePerGas), maxPriorityFeePerGas: bump(lowest.fees.maxPriorityFeePerGas) }
    const raw = await account.signTransaction({ type: 'eip1559', chainId, nonce: lowest.nonce, to: broker, data: lowest.data, gas: lowest.gas, ...fees })
    const txHash = keccak256(raw)
    const was = lowest.txHash
    replaceSlot.run(txHash, raw, lowest.nonce)
    await durable()
    const entry = waiting.get(was)
    if (!entry) return // mined meanwhile
    Object.assign(lowest, { txHash, raw, fees, sentAt: Date.now(), replaced: [...(lowest.replaced ?? []), was] })
    waiting.set(txHash, entry)
    await rpc(rpcUrl, 'eth_sendRawTransaction', [raw])
    logger.warn(`least relayer: tx ${was} at the key's next nonce ${lowest.nonce} unmined, no block for ${((Date.now() - headAt) / 1000).toFixed(1)} s; replaced it by tx ${txHash} at higher fees`)
  } catch (error) {
    logger.warn(`least relayer: a stalled tx could not be replaced (${(error as Error).message.slice(0, 200)}); will try again`)
  } finally {
    replacing = false
  }
}, 500)

// Replicas: the orderHash claims and outcomes shared through Redis (Bun's client pipelines the commands of one tick).
const redis = config.redisUrl ? new RedisClient(config.redisUrl) : undefined
const claimPrefix = `least-relayer:${chainId}`

async function relayOne(body: unknown): Promise<{ status: number; body: string }> {
  const checked: CheckedRequest | RelayError = checkSpecSteps(checksContext, body)
  if (checked instanceof RelayError) return { status: checked.status, body: JSON.stringify(checked.toBody()) }
  if (!redis) return relayChecked(checked)
  const claim = `${claimPrefix}:claim:${checked.orderHash}`
  if ((await redis.send('SET', [claim, String(process.pid), 'NX', 'PX', '10000'])) === null) {
    return { status: 502, body: JSON.stringify({ ok: false, code: 'UPSTREAM_RPC', message: 'another replica holds this order' }) }
  }
  const answer = await relayChecked(checked)
  await Promise.all([redis.send('SET', [`${claimPrefix}:outcome:${checked.orderHash}`, answer.body, 'PX', '86400000']), redis.del(claim)])
  return answer
}

async function relayChecked({ request, orderHash }: CheckedRequest): Promise<{ status: number; body: string }> {
  const data = encodeBrokerCall(request)
  const adapter = request.order.adapter as Hex
  const gas = await gasFor(adapter, data)
  const reverted = await simulate({ data, gas })
  if (reverted) return { status: 400, body: JSON.stringify({ ok: false, code: 'WOULD_REVERT', message: reverted }) }
  const outcomes = await send({ orderHash, adapter, data, gas })
  return outcomes
}

Bun.serve({
  hostname: '127.0.0.1',
  port: config.port,
  routes: {
    '/info': { GET: () => Response.json({ ok: true }) },
    '/broker': {
      POST: async (request) => {
        let answer: { status: number; body: string }
        try {
          answer = await relayOne(JSON.parse(await request.text()))
        } catch (error) {
          answer = { status: 502, body: JSON.stringify({ ok: false, code: 'UPSTREAM_RPC', message: (error as Error).message }) }
        }
        logger.info(`POST /broker ${answer.status}`)
        return new Response(answer.body, { status: answer.status, headers: jsonHeaders })
      },
    },
  },
})

// A clean exit on the bench's stop, so a CPU profile (--cpu-prof) is written.
process.on('SIGTERM', () => process.exit(0))
