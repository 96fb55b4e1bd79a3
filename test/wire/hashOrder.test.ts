// `hashOrder` (src/wire) against the deployed Broker's `hashOrder` view, for a generated
// table of orders plus the edge cases, checked through one batched JSON-RPC request.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Address, bytesToHex, createPublicClient, encodeAbiParameters, getAddress, type Hex, http, keccak256 } from 'viem'
import { brokerAbi } from '../../src/chain/index.ts'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { hashOrder, maxUint256, type Order, orderTupleAbi, type OrderStruct, toOrderJson, toOrderStruct } from '../../src/wire/index.ts'

let devnet: Devnet

beforeAll(async () => {
  devnet = await startDevnet()
})
afterAll(async () => {
  await devnet?.stop()
})

/** A small seeded generator (xorshift32), so a failing case can be reproduced. */
function random(seed: number) {
  let state = seed >>> 0 || 1
  const next = () => {
    state ^= state << 13
    state >>>= 0
    state ^= state >>> 17
    state ^= state << 5
    state >>>= 0
    return state
  }
  const bytes = (length: number) => bytesToHex(Uint8Array.from({ length }, () => next() & 0xff))
  return {
    int: (below: number) => next() % below,
    bytes,
    address: (): Address => getAddress(bytes(20)),
    /** A uint256 of a random bit length, so small, medium and huge values all appear. */
    uint256: (): bigint => {
      const bits = next() % 257
      if (bits === 0) return 0n
      return BigInt(bytes(32)) >> BigInt(256 - bits)
    },
  }
}

const zero: Address = '0x0000000000000000000000000000000000000000'
const ones: Address = '0xFFfFfFffFFfffFFfFFfFFFFFffFFFffffFfFFFfF'
const rng = random(0x5eed)

function randomOrder(): OrderStruct {
  return {
    consumer: rng.address(),
    adapter: rng.address(),
    params: rng.bytes(rng.int(4) === 0 ? rng.int(1200) : rng.int(100)),
    payToken: rng.address(),
    payee: rng.address(),
    amount: rng.uint256(),
    nonce: rng.uint256(),
    feeBps: rng.int(65536),
  }
}

const base = randomOrder()
const edgeCases: [string, OrderStruct][] = [
  ...[0, 1, 31, 32, 33, 63, 64, 65, 1000].map((length): [string, OrderStruct] => [`params of ${length} bytes`, { ...base, params: rng.bytes(length) }]),
  ['params of 1000 zero bytes', { ...base, params: `0x${'00'.repeat(1000)}` }],
  ['params of 1 byte 0xff', { ...base, params: '0xff' }],
  ['amount 0, nonce 0', { ...base, amount: 0n, nonce: 0n }],
  ['amount max, nonce max', { ...base, amount: maxUint256, nonce: maxUint256 }],
  ['amount 0, nonce max', { ...base, amount: 0n, nonce: maxUint256 }],
  ['amount max, nonce 0', { ...base, amount: maxUint256, nonce: 0n }],
  ...[0, 1, 9999, 10000, 10001, 65534, 65535].map((feeBps): [string, OrderStruct] => [`feeBps ${feeBps}`, { ...base, feeBps }]),
  ['every address zero', { ...base, consumer: zero, adapter: zero, payToken: zero, payee: zero }],
  ['every address 0xff…ff', { ...base, consumer: ones, adapter: ones, payToken: ones, payee: ones }],
  ['all zero and empty', { consumer: zero, adapter: zero, params: '0x', payToken: zero, payee: zero, amount: 0n, nonce: 0n, feeBps: 0 }],
  ['all max', { consumer: ones, adapter: ones, params: `0x${'ff'.repeat(1000)}`, payToken: ones, payee: ones, amount: maxUint256, nonce: maxUint256, feeBps: 65535 }],
]
const generated: [string, OrderStruct][] = Array.from({ length: 120 }, (_, i) => [`generated #${i}`, randomOrder()])
const table = [...edgeCases, ...generated]

test(`hashOrder equals the Broker's hashOrder for ${table.length} orders, in one batched request`, async () => {
  let fetches = 0
  const batched = createPublicClient({
    transport: http(devnet.rpcUrl, { batch: { batchSize: 1000, wait: 0 }, retryCount: 0, onFetchRequest: () => void fetches++ }),
  })
  const broker = getAddress(devnet.manifest.contracts.broker)
  const onChain = await Promise.all(
    table.map(([, order]) => batched.readContract({ address: broker, abi: brokerAbi, functionName: 'hashOrder', args: [order] })),
  )
  expect(fetches).toBe(1)

  const mismatches = table
    .map(([name, order], i) => ({ name, local: hashOrder(order), onChain: onChain[i] }))
    .filter(({ local, onChain }) => local !== onChain)
  expect(mismatches).toEqual([])
  // Every order hashes differently: the table really covers distinct encodings.
  expect(new Set(onChain).size).toBe(table.length)
}, 30_000)

test('the wire form (decimal strings, any address case) hashes like the struct', () => {
  for (const [name, struct] of table) {
    const json: Order = toOrderJson(struct)
    const lower: Order = { ...json, consumer: json.consumer.toLowerCase(), adapter: json.adapter.toLowerCase() }
    const upper: Order = { ...json, payToken: `0x${json.payToken.slice(2).toUpperCase()}`, payee: `0x${json.payee.slice(2).toUpperCase()}` }
    // A mixed case that is not the checksum (the wire does not enforce checksums).
    const scrambled: Order = { ...json, consumer: scramble(json.consumer) }
    const expected = hashOrder(struct)
    expect({ name, hashes: [hashOrder(json), hashOrder(lower), hashOrder(upper), hashOrder(scrambled)] }).toEqual({
      name,
      hashes: [expected, expected, expected, expected],
    })
    expect(toOrderStruct(json)).toEqual(struct)
  }
})

test('changing any single field changes the hash', () => {
  const order = edgeCases[0]![1]
  const variants: OrderStruct[] = [
    { ...order, consumer: rng.address() },
    { ...order, adapter: rng.address() },
    { ...order, params: `${order.params}00` },
    { ...order, payToken: rng.address() },
    { ...order, payee: rng.address() },
    { ...order, amount: order.amount + 1n },
    { ...order, nonce: order.nonce + 1n },
    { ...order, feeBps: order.feeBps + 1 },
  ]
  const hashes = new Set([order, ...variants].map((item) => hashOrder(item)))
  expect(hashes.size).toBe(variants.length + 1)
})

// hashOrder writes into bytes it reuses from call to call: what an earlier order (a
// longer one, one of all-ones, or one refused halfway through) left there must not
// reach the next hash.
test('a hash does not depend on the orders hashed before it', () => {
  const expectedOf = (order: OrderStruct) => keccak256(encodeAbiParameters(orderTupleAbi, [order]))
  const allMax = edgeCases.find(([name]) => name === 'all max')![1]
  const allZero = edgeCases.find(([name]) => name === 'all zero and empty')![1]
  const long: OrderStruct = { ...allMax, params: `0x${'ff'.repeat(5000)}` }
  const refusedHalfway = { ...toOrderJson(allMax), payee: 'not an address' }
  const sequence = [long, allZero, allMax, base, allZero, ...generated.slice(0, 20).map(([, order]) => order)]
  for (const order of sequence) {
    expect(hashOrder(order)).toBe(expectedOf(order))
    expect(() => hashOrder(refusedHalfway)).toThrow('not 0x followed by 40 hex digits')
  }
})

/** Flips the case of the first letter digit of an address's hex, breaking its checksum. */
function scramble(address: string): Hex {
  const checksummed = getAddress(address)
  const index = [...checksummed].findIndex((char, i) => i > 1 && /[a-fA-F]/.test(char))
  if (index < 0) return checksummed
  const char = checksummed[index]!
  const flipped = char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase()
  return `${checksummed.slice(0, index)}${flipped}${checksummed.slice(index + 1)}` as Hex
}
