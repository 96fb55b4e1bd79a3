// The wire schemas (SPEC.md 2): valid requests parse unchanged; everything DESIGN.md calls
// malformed is rejected, and `describeIssues` names the field without echoing the value.
import { describe, expect, test } from 'bun:test'
import * as v from 'valibot'
import {
  ActivitySnapshotSchema,
  describeIssues,
  maxUint256,
  OrderSchema,
  RelayerInfoSchema,
  RelayFailureSchema,
  type RelayRequest,
  RelayRequestSchema,
  RelaySuccessSchema,
} from '../../src/wire/index.ts'

const address = (byte: string) => `0x${byte.repeat(20)}`
const bytes32 = (byte: string) => `0x${byte.repeat(32)}`

const validRequest: RelayRequest = {
  order: {
    consumer: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    adapter: address('ab'),
    params: `0x${'00'.repeat(31)}01`,
    payToken: address('CD'),
    payee: address('eF'),
    amount: '10000000',
    nonce: '1795300599000001',
    feeBps: 50,
  },
  signature: { v: 27, r: bytes32('11'), s: bytes32('22') },
  validAfter: '0',
  validBefore: '1795304199',
  chainId: 421614,
  orderHash: bytes32('aa'),
}

type Body = Record<string, unknown> & { order: Record<string, unknown>; signature: Record<string, unknown> }
const body = (): Body => structuredClone(validRequest) as unknown as Body

function parse(input: unknown) {
  return v.safeParse(RelayRequestSchema, input)
}

describe('valid requests parse, unchanged', () => {
  const variants: [string, (b: Body) => void][] = [
    ['as signed', () => {}],
    ['without the optional orderHash', (b) => void delete b.orderHash],
    ['amount 0 and nonce 0', (b) => Object.assign(b.order, { amount: '0', nonce: '0' })],
    ['amount and nonce 2^256 - 1', (b) => Object.assign(b.order, { amount: maxUint256.toString(), nonce: maxUint256.toString() })],
    ['feeBps 0', (b) => void (b.order.feeBps = 0)],
    ['feeBps 10000', (b) => void (b.order.feeBps = 10000)],
    ['feeBps 10001 (well-formed; the Broker answers FeeTooHigh)', (b) => void (b.order.feeBps = 10001)],
    ['feeBps 65535', (b) => void (b.order.feeBps = 65535)],
    ['empty params', (b) => void (b.order.params = '0x')],
    ['1000 bytes of params', (b) => void (b.order.params = `0x${'7f'.repeat(1000)}`)],
    ['lower-, upper- and mixed-case addresses', (b) => Object.assign(b.order, { consumer: address('ab'), adapter: address('AB'), payee: address('aB') })],
    ['validBefore 2^256 - 1', (b) => void (b.validBefore = maxUint256.toString())],
    ['signature v 0', (b) => void (b.signature.v = 0)],
    ['chainId 46630', (b) => void (b.chainId = 46630)],
  ]
  for (const [name, change] of variants) {
    test(name, () => {
      const input = body()
      change(input)
      const parsed = parse(input)
      expect(parsed.success).toBe(true)
      expect(parsed.output).toEqual(input as unknown as RelayRequest)
    })
  }
})

describe('MALFORMED_ORDER inputs are rejected with a message that names the field, never the value', () => {
  const huge = (maxUint256 + 1n).toString()
  // [case, change, exact describeIssues message, the offending value that must not appear]
  const cases: [string, (b: Body) => void, string, string | undefined][] = [
    ['amount with a leading zero', (b) => void (b.order.amount = '0987654321'), 'order.amount must be a canonical decimal string (digits only, no sign, no leading zero)', '0987654321'],
    ['nonce with a leading zero', (b) => void (b.order.nonce = '00'), 'order.nonce must be a canonical decimal string (digits only, no sign, no leading zero)', '00'],
    ['negative amount', (b) => void (b.order.amount = '-987654321'), 'order.amount must be a canonical decimal string (digits only, no sign, no leading zero)', '-987654321'],
    ['fractional amount', (b) => void (b.order.amount = '98765.4321'), 'order.amount must be a canonical decimal string (digits only, no sign, no leading zero)', '98765.4321'],
    ['amount with a plus sign', (b) => void (b.order.amount = '+987654321'), 'order.amount must be a canonical decimal string (digits only, no sign, no leading zero)', '+987654321'],
    ['amount in hex', (b) => void (b.order.amount = '0x3b9aca00'), 'order.amount must be a canonical decimal string (digits only, no sign, no leading zero)', '0x3b9aca00'],
    ['amount in exponent form', (b) => void (b.order.amount = '9e18'), 'order.amount must be a canonical decimal string (digits only, no sign, no leading zero)', '9e18'],
    ['empty amount', (b) => void (b.order.amount = ''), 'order.amount must be a canonical decimal string (digits only, no sign, no leading zero)', undefined],
    ['amount as a JSON number', (b) => void (b.order.amount = 987654321), 'order.amount must be a decimal string', '987654321'],
    ['amount of 2^256', (b) => void (b.order.amount = huge), 'order.amount must fit in uint256', huge],
    ['nonce of 2^256', (b) => void (b.order.nonce = huge), 'order.nonce must fit in uint256', huge],
    ['nonce of 100 digits', (b) => void (b.order.nonce = '9'.repeat(100)), 'order.nonce must fit in uint256', '9'.repeat(100)],
    ['validBefore of 2^256', (b) => void (b.validBefore = huge), 'validBefore must fit in uint256', huge],
    ['validAfter negative', (b) => void (b.validAfter = '-424242'), 'validAfter must be a canonical decimal string (digits only, no sign, no leading zero)', '-424242'],
    ['feeBps 65536', (b) => void (b.order.feeBps = 65536), 'order.feeBps must be at most 65535 (feeBps is a uint16)', '65536'],
    ['feeBps negative', (b) => void (b.order.feeBps = -7777), 'order.feeBps must be at least 0 (feeBps is a uint16)', '-7777'],
    ['feeBps fractional', (b) => void (b.order.feeBps = 50.25), 'order.feeBps must be an integer (feeBps is a uint16)', '50.25'],
    ['feeBps as a string', (b) => void (b.order.feeBps = '4321'), 'order.feeBps must be an integer (feeBps is a uint16)', '4321'],
    ['non-hex consumer', (b) => void (b.order.consumer = `0x${'zq'.repeat(20)}`), 'order.consumer must be an address: 0x followed by 40 hex digits', 'zqzq'],
    ['short payee', (b) => void (b.order.payee = '0xdeadbeef'), 'order.payee must be an address: 0x followed by 40 hex digits', 'deadbeef'],
    ['payToken without 0x', (b) => void (b.order.payToken = 'c'.repeat(40)), 'order.payToken must be an address: 0x followed by 40 hex digits', 'cccccccc'],
    ['adapter with 41 digits', (b) => void (b.order.adapter = `0x${'a'.repeat(41)}`), 'order.adapter must be an address: 0x followed by 40 hex digits', 'aaaaaaaa'],
    ['params with an odd number of digits', (b) => void (b.order.params = '0xabc'), 'order.params must be hex: 0x followed by an even number of hex digits', '0xabc'],
    ['params not hex', (b) => void (b.order.params = 'hello world'), 'order.params must be hex: 0x followed by an even number of hex digits', 'hello world'],
    ['unknown key in the order', (b) => void (b.order.sneakyKey4242 = 'sneakyValue4242'), 'order has an unexpected field', 'sneaky'],
    ['unknown key in the request', (b) => void (b.sneakyKey4242 = 'sneakyValue4242'), 'body has an unexpected field', 'sneaky'],
    ['unknown key in the signature', (b) => void (b.signature.sneakyKey4242 = 1), 'signature has an unexpected field', 'sneaky'],
    ['missing order.payee', (b) => void delete b.order.payee, 'order.payee is required', undefined],
    ['missing order.feeBps', (b) => void delete b.order.feeBps, 'order.feeBps is required', undefined],
    ['missing signature', (b) => void delete (b as Record<string, unknown>).signature, 'signature is required', undefined],
    ['missing validBefore', (b) => void delete b.validBefore, 'validBefore is required', undefined],
    ['missing chainId', (b) => void delete b.chainId, 'chainId is required', undefined],
    ['order is not an object', (b) => void (b.order = 'sneakyOrder' as never), 'order must be a JSON object', 'sneakyOrder'],
    ['signature v 256', (b) => void (b.signature.v = 256), 'signature.v must be at most 255 (v is a uint8)', '256'],
    ['signature r too short', (b) => void (b.signature.r = '0x1234abcd'), 'signature.r must be 32 bytes of hex: 0x followed by 64 hex digits', '1234abcd'],
    ['orderHash not 32 bytes', (b) => void (b.orderHash = '0xfeedface'), 'orderHash must be 32 bytes of hex: 0x followed by 64 hex digits', 'feedface'],
    ['chainId 0', (b) => void (b.chainId = 0), 'chainId must be at least 1 (chainId)', undefined],
  ]
  for (const [name, change, message, value] of cases) {
    test(name, () => {
      const input = body()
      change(input)
      const parsed = parse(input)
      expect(parsed.success).toBe(false)
      const described = describeIssues(parsed.issues!)
      expect(described).toBe(message)
      if (value !== undefined) expect(described).not.toContain(value)
    })
  }

  test('several bad fields are all named, none of their values', () => {
    const input = body()
    Object.assign(input.order, { amount: '-1234567', feeBps: 99999, payee: '0xnothex' })
    input.sneakyKey4242 = 'sneakyValue4242'
    const parsed = parse(input)
    expect(parsed.success).toBe(false)
    const described = describeIssues(parsed.issues!)
    expect(described).toBe(
      'order.payee must be an address: 0x followed by 40 hex digits; ' +
        'order.amount must be a canonical decimal string (digits only, no sign, no leading zero); ' +
        'order.feeBps must be at most 65535 (feeBps is a uint16); ' +
        'body has an unexpected field',
    )
    for (const value of ['-1234567', '99999', 'nothex', 'sneaky']) expect(described).not.toContain(value)
  })

  test('a body that is not an object at all', () => {
    for (const input of [null, 42, 'order', true]) {
      const parsed = parse(input)
      expect(parsed.success).toBe(false)
      expect(describeIssues(parsed.issues!)).toBe('body must be a JSON object')
    }
  })

  test('the order schema alone rejects the same things', () => {
    expect(v.safeParse(OrderSchema, validRequest.order).success).toBe(true)
    expect(v.safeParse(OrderSchema, { ...validRequest.order, feeBps: 65536 }).success).toBe(false)
    expect(v.safeParse(OrderSchema, { ...validRequest.order, extra: 1 }).success).toBe(false)
  })
})

describe('the other resources of SPEC.md 2', () => {
  test('RelaySuccess, RelayFailure, RelayerInfo and ActivitySnapshot parse their documented shapes', () => {
    const success = {
      ok: true,
      txHash: bytes32('01'),
      orderHash: bytes32('02'),
      brokered: { consumer: address('03'), adapter: address('04'), amount: '10000000', orderHash: bytes32('02') },
      receipt: { adapter: 'allocation', event: 'AllocationGranted', fields: { vaultId: '1', slot: '0' } },
      feeCollected: '50000',
    }
    expect(v.safeParse(RelaySuccessSchema, success).success).toBe(true)
    expect(v.safeParse(RelaySuccessSchema, { ...success, feeCollected: '-1' }).success).toBe(false)

    expect(v.safeParse(RelayFailureSchema, { ok: false, code: 'WOULD_REVERT', message: 'would revert: AllocationSoldOut(vaultId=7)' }).success).toBe(true)
    expect(v.safeParse(RelayFailureSchema, { ok: false, code: 'RATE_LIMITED', message: 'edge codes are a separate union' }).success).toBe(false)

    expect(v.safeParse(RelayerInfoSchema, { feeFloorBps: 0, supportedChainIds: [421614], relayer: address('05') }).success).toBe(true)
    expect(v.safeParse(RelayerInfoSchema, { feeFloorBps: 65536, supportedChainIds: [421614], relayer: address('05') }).success).toBe(false)

    const snapshot = {
      source: 'chain',
      chainId: 421614,
      addresses: [address('a1'), address('a2'), address('a3'), address('a4')],
      deployedAt: '1',
      indexedThrough: '20',
      head: '21',
      lagBlocks: 1,
      stale: false,
      truncated: false,
      events: [
        {
          name: 'LienRecorded',
          address: address('a1'),
          blockNumber: '12',
          logIndex: 0,
          transactionHash: bytes32('06'),
          fields: { lienId: bytes32('07'), borrower: address('08'), expiresAt: '1826836599' },
        },
      ],
    }
    expect(v.safeParse(ActivitySnapshotSchema, snapshot).success).toBe(true)
    expect(v.safeParse(ActivitySnapshotSchema, { ...snapshot, source: 'cache' }).success).toBe(false)
    expect(v.safeParse(ActivitySnapshotSchema, { ...snapshot, addresses: snapshot.addresses.slice(0, 3) }).success).toBe(false)
  })
})
