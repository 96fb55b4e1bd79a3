// A batch of signed txs reaches the node in one JSON-RPC batch request, each tx answered
// on its own. A tx refused in the middle of the batch leaves a gap the later, pooled txs
// would wait behind for good: its nonce is filled. A refusal at the end frees its nonce.
// A node that takes no batches gets one request per tx, after one warning line.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createPublicClient, type Hex, http, type PublicClient, parseTransaction } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { RelayError } from '../../src/relayer/errors.ts'
import type { Sent } from '../../src/relayer/submitter/index.ts'
import { keccakReady } from '../../src/wire/index.ts'
import { devnetSubmitter } from '../helpers/devnetSubmitter.ts'
import { startFlakyRpc } from './support/flakyRpc.ts'

let devnet: Devnet
const stops: Array<() => unknown> = []

beforeAll(async () => {
  await keccakReady
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  for (const stop of stops.reverse()) await stop()
  await devnet?.stop()
})

/** A submitter on a fresh funded key, talking to anvil through a proxy that can refuse calls. */
async function submitterBehindProxy(name: string) {
  const rpc = startFlakyRpc(devnet.rpcUrl)
  stops.push(() => rpc.stop())
  const client = createPublicClient({ transport: http(rpc.url, { retryCount: 0 }) }) as PublicClient
  const broadcastClient = createPublicClient({ transport: http(rpc.url, { batch: { batchSize: 64 }, retryCount: 0 }) }) as PublicClient
  const watchClient = createPublicClient({ transport: http(rpc.url, { batch: { batchSize: 16 }, retryCount: 0 }) }) as PublicClient
  const { account, journal, logger, submitter, stop } = await devnetSubmitter(devnet, `batch broadcast: ${name}`, { options: { client, broadcastClient, watchClient } })
  stops.push(stop)
  return { rpc, account, journal, logger, submitter }
}

type Submitter = Awaited<ReturnType<typeof submitterBehindProxy>>['submitter']

/** Ten calls queued in one tick (one batch): each a transfer to the spare account carrying the byte i. */
function sendTen(submitter: Submitter): Promise<Array<PromiseSettledResult<Sent>>> {
  return Promise.allSettled(Array.from({ length: 10 }, (_, i) => submitter.send({ to: devnetAccounts.spare.address, data: `0x0${i}`, gas: 50_000n })))
}

const isSendOf = (byte: Hex) => (call: { method: string; params: unknown[] }) =>
  call.method === 'eth_sendRawTransaction' && parseTransaction(call.params[0] as Hex).data === byte

/** Every slot 0..count-1 resolved (or still pending after the deadline), by status. */
async function statuses(submitter: Submitter, count: number): Promise<string[]> {
  return Promise.all(Array.from({ length: count }, async (_, nonce) => (await submitter.outcome(nonce, 15_000))?.status ?? 'none'))
}

test('ten txs queued together: one JSON-RPC batch request carries them all, and all are mined', async () => {
  const { rpc, submitter } = await submitterBehindProxy('one batch')
  const results = await sendTen(submitter)
  expect(results.map((each) => each.status)).toEqual(results.map(() => 'fulfilled'))
  expect(rpc.sendBatches).toContain(10)
  expect(rpc.seen.filter((method) => method === 'eth_sendRawTransaction')).toHaveLength(10)
  expect(await statuses(submitter, 10)).toEqual(Array.from({ length: 10 }, () => 'settled'))
})

test('a tx refused in the middle of the batch: the later txs are pooled, so its nonce is filled by a 0-value transfer and every later tx is mined', async () => {
  const { rpc, submitter, journal, logger, account } = await submitterBehindProxy('gap')
  rpc.refuseWhen(isSendOf('0x03'), 'intrinsic gas too low')
  const results = await sendTen(submitter)
  expect(results.map((each) => each.status)).toEqual(results.map((_, i) => (i === 3 ? 'rejected' : 'fulfilled')))
  const refused = results[3] as PromiseRejectedResult
  expect(refused.reason).toBeInstanceOf(RelayError)
  expect((refused.reason as RelayError).code).toBe('UPSTREAM_RPC')
  expect(await statuses(submitter, 10)).toEqual(Array.from({ length: 10 }, (_, i) => (i === 3 ? 'filled' : 'settled')))
  // The filler is a 0-value transfer to the key itself, and the slot says why its order did not settle.
  const filler = await devnet.publicClient.getTransaction({ hash: journal.slot(3)!.txHash })
  expect([filler.to?.toLowerCase(), filler.value, filler.input]).toEqual([account.address.toLowerCase(), 0n, '0x'])
  // Its order can still settle (nothing of it was spent): the slot's clients are told to send it again, not to sign a new one.
  expect(JSON.parse(journal.slot(3)!.outcome!)).toEqual({
    code: 'UPSTREAM_RPC',
    message: expect.stringMatching(/^not settled: the node refuses its transaction \(intrinsic gas too low\); its tx 0x[0-9a-f]{64} was refused by the node before it was mined and its nonce was filled; nothing was spent on this order and it can still settle/),
  })
  expect(logger.lines).toContainEqual(expect.stringMatching(/^warn: tx 0x[0-9a-f]{64} \(nonce 3\) was refused by the node \(intrinsic gas too low\) while later txs of its batch were accepted; filled its nonce with a 0-value transfer, tx 0x[0-9a-f]{64}$/))
  expect(await devnet.publicClient.getTransactionCount({ address: account.address })).toBe(10)
}, 30_000)

test('the last tx of the batch refused: nothing waits behind it, so its slot is dropped and the next tx takes its nonce', async () => {
  const { rpc, submitter, journal, account } = await submitterBehindProxy('tail')
  rpc.refuseWhen(isSendOf('0x09'), 'intrinsic gas too low')
  const results = await sendTen(submitter)
  expect(results.map((each) => each.status)).toEqual(results.map((_, i) => (i === 9 ? 'rejected' : 'fulfilled')))
  expect(journal.slot(9)).toBeUndefined()
  rpc.heal()
  const next = await submitter.send({ to: devnetAccounts.spare.address, data: '0x0a', gas: 50_000n })
  expect(next.nonce).toBe(9)
  expect(await statuses(submitter, 10)).toEqual(Array.from({ length: 10 }, () => 'settled'))
  expect(await devnet.publicClient.getTransactionCount({ address: account.address })).toBe(10)
}, 30_000)

test('a node that takes no JSON-RPC batches: one warning, then one request per tx, and every tx is mined', async () => {
  const { rpc, submitter, logger } = await submitterBehindProxy('no batches')
  rpc.refuseBatches('batch requests are not supported')
  const first = await sendTen(submitter)
  expect(first.map((each) => each.status)).toEqual(first.map(() => 'fulfilled'))
  const second = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => submitter.send({ to: devnetAccounts.spare.address, data: `0x1${i}`, gas: 50_000n })))
  expect(second.map((each) => each.status)).toEqual(second.map(() => 'fulfilled'))
  expect(await statuses(submitter, 15)).toEqual(Array.from({ length: 15 }, () => 'settled'))
  expect(logger.lines.filter((line) => line.startsWith('warn:') && line.includes('JSON-RPC batch'))).toEqual([
    'warn: the RPC refused a JSON-RPC batch of 10 eth_sendRawTransaction calls; the relayer sends one transaction per request from now on',
  ])
  // Only the first batch of txs was tried; the receipt watcher gives up batching its looks after three refused ones.
  expect(rpc.sendBatches.filter((size) => size > 1)).toHaveLength(1)
  expect(rpc.batches.length - rpc.sendBatches.length).toBeLessThanOrEqual(3)
}, 30_000)

test('the next batch, signed while a batch is at the node, is dropped unsent and signed again when that batch frees nonces', async () => {
  const { rpc, submitter, journal, account } = await submitterBehindProxy('overlap')
  rpc.refuseWhen(isSendOf('0x09'), 'intrinsic gas too low')
  const recorded: number[][] = []
  const record = journal.record.bind(journal)
  journal.record = (slots) => {
    recorded.push(slots.map((slot) => slot.nonce))
    return record(slots)
  }
  const first = sendTen(submitter)
  // Queued once the first batch is taken: signed and journaled at nonces 10.. while it is sent.
  await new Promise((resolve) => setImmediate(resolve))
  const second = Promise.allSettled(Array.from({ length: 5 }, (_, i) => submitter.send({ to: devnetAccounts.spare.address, data: `0x1${i}`, gas: 50_000n })))
  const results = await first
  expect(results.map((each) => each.status)).toEqual(results.map((_, i) => (i === 9 ? 'rejected' : 'fulfilled')))
  const later = await second
  expect(later.map((each) => (each.status === 'fulfilled' ? each.value.nonce : 'rejected'))).toEqual([9, 10, 11, 12, 13])
  expect(rpc.sendBatches).toEqual([10, 5])
  // Signed and written at 10..14 while the first batch was at the node, then dropped and written again at 9..13.
  expect(recorded.map((nonces) => [nonces[0], nonces.length])).toEqual([[0, 10], [10, 5], [9, 5]])
  expect(await statuses(submitter, 14)).toEqual(Array.from({ length: 14 }, () => 'settled'))
  expect(journal.slot(14)).toBeUndefined()
  expect(await devnet.publicClient.getTransactionCount({ address: account.address })).toBe(14)
}, 30_000)
