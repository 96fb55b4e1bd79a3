// Property: any change to one field of a signed order (any field, random values) is
// refused and never settles. With the client's original orderHash the relayer answers
// ORDERHASH_MISMATCH for an order field; without it (or for a field outside the
// order) the chain refuses it in simulation: `invalid signature`, or FeeTooHigh,
// `authorization not yet valid`, AUTH_EXPIRED. Nothing is broadcast, no Brokered
// log names the tampered orderHash, the consumer's balance does not move.
import { expect, test } from 'bun:test'
import { encodeAbiParameters, type Hex } from 'viem'
import { brokeredEvent, mockEIP3009TokenAbi } from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts } from '../../src/devnet/index.ts'
import { hashOrder, type RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { type TestRelayer, useDevnetWithRelayer } from '../helpers/relayer.ts'
import { createRandom, type Random } from '../helpers/random.ts'

const seed = Number(process.env.FUZZ_SEED ?? 0x7a3bee)
const cases = 300

let devnet: Devnet
let relayer: TestRelayer

useDevnetWithRelayer((startedDevnet, startedRelayer) => {
  devnet = startedDevnet
  relayer = startedRelayer
})

const orderFields = ['consumer', 'adapter', 'params', 'payToken', 'payee', 'amount', 'nonce', 'feeBps'] as const
const otherFields = ['validAfter', 'validBefore', 'signature.v', 'signature.r', 'signature.s'] as const
type Field = (typeof orderFields)[number] | (typeof otherFields)[number]

/** `request` with one field set to a random different value of the right type. */
function tamper(request: RelayRequest, field: Field, rng: Random, now: bigint): RelayRequest {
  const known = [...Object.values(devnet.manifest.contracts), ...Object.values(devnetAccounts).map((account) => account.address)]
  const differentAddress = (from: string) => {
    for (;;) {
      const next = rng.chance(0.5) ? (`0x${rng.hex(20)}` as Hex) : rng.pick(known)
      if (next.toLowerCase() !== from.toLowerCase()) return next
    }
  }
  const different = <T>(from: T, make: () => T): T => {
    for (;;) {
      const next = make()
      if (next !== from) return next
    }
  }
  const order = { ...request.order }
  const copy = { ...request, order, signature: { ...request.signature } }
  switch (field) {
    case 'consumer':
    case 'adapter':
    case 'payToken':
    case 'payee':
      order[field] = differentAddress(order[field])
      break
    case 'params':
      order.params = different(order.params, () =>
        rng.chance(0.5) ? encodeAbiParameters([{ type: 'uint256' }], [BigInt(rng.int(0, 5))]) : (`0x${rng.hex(rng.int(0, 96))}` as Hex),
      )
      break
    case 'amount':
    case 'nonce':
      order[field] = different(order[field], () => rng.pick([() => rng.uint256(), () => BigInt(order[field]) + 1n, () => BigInt(order[field]) - 1n, () => 0n])().toString())
      break
    case 'feeBps':
      order.feeBps = different(order.feeBps, () => (rng.chance(0.3) ? rng.int(10_001, 65_535) : rng.int(0, 10_000)))
      break
    case 'validAfter':
      copy.validAfter = different(copy.validAfter, () => (now + BigInt(rng.int(-100_000, 100_000))).toString())
      break
    case 'validBefore':
      // Clearly past or clearly future (the relayer keeps a 2 s margin before expiry).
      copy.validBefore = different(copy.validBefore, () => (rng.chance(0.5) ? now - BigInt(rng.int(10, 10 ** 6)) : now + BigInt(rng.int(100, 10 ** 8))).toString())
      break
    case 'signature.v':
      copy.signature.v = different(copy.signature.v, () => (rng.chance(0.5) ? 55 - copy.signature.v : rng.int(0, 255)))
      break
    case 'signature.r':
    case 'signature.s': {
      const key = field === 'signature.r' ? 'r' : 's'
      copy.signature[key] = different(copy.signature[key], () => `0x${rng.hex(32)}` as Hex)
      break
    }
  }
  return copy
}

/** What the chain must say about the tampered request when the relayer simulates it. */
function expectedRefusal(tampered: RelayRequest, field: Field, now: bigint): { code: string; message?: string } {
  // Another pay token: one this relayer has no price for, refused before anything is simulated.
  if (field === 'payToken') return { code: 'FEE_BELOW_FLOOR', message: 'is not accepted by this relayer' }
  if (BigInt(tampered.validBefore) < now) return { code: 'AUTH_EXPIRED' }
  if (tampered.order.feeBps > 10_000) return { code: 'WOULD_REVERT', message: 'FeeTooHigh' }
  if (BigInt(tampered.validAfter) > now) return { code: 'WOULD_REVERT', message: 'authorization not yet valid' }
  return { code: 'WOULD_REVERT', message: 'invalid signature' }
}

test(`${cases} signed orders, one field each changed to a random value (seed ${seed}): refused, never settled`, async () => {
  const rng = createRandom(seed)
  const { contracts } = devnet.manifest
  const consumer = devnetAccounts.consumer.address
  const balance = () => devnet.publicClient.readContract({ address: contracts.payToken, abi: mockEIP3009TokenAbi, functionName: 'balanceOf', args: [consumer] })
  const relayerNonce = () => devnet.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address })
  const brokered = () => devnet.publicClient.getLogs({ address: contracts.broker, event: brokeredEvent, fromBlock: 0n })
  const [balanceBefore, nonceBefore, logsBefore] = await Promise.all([balance(), relayerNonce(), brokered()])
  const now = (await devnet.publicClient.getBlock()).timestamp

  const hashes = new Set<string>()
  const seen = new Map<Field, number>()
  const mismatches: unknown[] = []
  for (let i = 0; i < cases; i++) {
    const original = await signed(devnet, allocationOrder(devnet))
    const field = rng.pick([...orderFields, ...otherFields])
    seen.set(field, (seen.get(field) ?? 0) + 1)
    const tampered = tamper(original, field, rng, now)
    hashes.add(original.orderHash!.toLowerCase())
    hashes.add(hashOrder(tampered.order).toLowerCase())
    const refusal = expectedRefusal(tampered, field, now)

    // With the original orderHash: an order field breaks the hash at step 2.
    const withHash = await relayer.post(tampered)
    const expectedWithHash = (orderFields as readonly string[]).includes(field) ? { code: 'ORDERHASH_MISMATCH' } : refusal
    // Without it: the relayer recomputes the hash and the chain refuses in simulation.
    const { orderHash: _dropped, ...withoutHashRequest } = tampered
    const withoutHash = await relayer.post(withoutHashRequest)
    for (const [answer, expected] of [
      [withHash, expectedWithHash],
      [withoutHash, refusal],
    ] as const) {
      const code = answer.body?.code
      const message = String(answer.body?.message ?? '')
      const status = expected.code === 'ORDERHASH_MISMATCH' ? 400 : expected.code === 'FEE_BELOW_FLOOR' ? 402 : 422
      if (answer.status !== status || code !== expected.code || (expected.message !== undefined && !message.includes(expected.message))) {
        mismatches.push({ case: i, field, expected, status: answer.status, body: answer.body })
      }
    }
  }
  expect(mismatches).toEqual([])
  // Every field was tampered with, several times.
  expect([...seen.keys()].sort()).toEqual([...orderFields, ...otherFields].sort())
  for (const [field, times] of seen) expect({ field, times: times >= 3 }).toEqual({ field, times: true })

  // Nothing settled, nothing was even broadcast, nothing moved.
  const logsAfter = await brokered()
  expect(logsAfter.length).toBe(logsBefore.length)
  expect(logsAfter.filter((log) => hashes.has(log.args.orderHash!.toLowerCase()))).toEqual([])
  expect(await relayerNonce()).toBe(nonceBefore)
  expect(await balance()).toBe(balanceBefore)
  // The same orders untouched are good: one settles.
  const control = await signed(devnet, allocationOrder(devnet))
  expect((await relayer.post(control)).status).toBe(200)
}, 60_000)
