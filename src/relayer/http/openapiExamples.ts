import type { NamedExample } from '../../openapi/index.ts'
import {
  type BrokerStatus,
  type EdgeRejection,
  type Readiness,
  type RelayerStatus,
  hashOrder,
  type Order,
  type RelayerInfo,
  type RelayErrorCode,
  type RelayFailure,
  type RelayRequest,
  type RelaySuccess,
  type RouteFailure,
} from '../../wire/index.ts'

// Example bodies for the relayer's OpenAPI document: one consistent story (an
// allocation order for vault 1, 10 USDC at 50 bps), so the orderHash is the real hash
// of the example order and every example validates against its schema.

const order: Order = {
  consumer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  adapter: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
  params: '0x0000000000000000000000000000000000000000000000000000000000000001',
  payToken: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  payee: '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f',
  amount: '10000000',
  nonce: '1732363200000001',
  feeBps: 50,
}
const orderHash = hashOrder(order)

export const relayRequestExample: RelayRequest = {
  order,
  signature: {
    v: 28,
    r: '0x9b2f3a6cfd1e5a4b0c7d8e9f00112233445566778899aabbccddeeff00112233',
    s: '0x1f2e3d4c5b6a79880796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0',
  },
  validAfter: '0',
  validBefore: '1732366800',
  chainId: 421614,
  orderHash,
}

export const relaySuccessExample: RelaySuccess = {
  ok: true,
  txHash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
  orderHash,
  brokered: { consumer: order.consumer, adapter: order.adapter, amount: order.amount, orderHash },
  receipt: { adapter: 'allocation', event: 'AllocationGranted', fields: { orderHash, vaultId: '1', consumer: order.consumer, slot: '0' } },
  feeCollected: '50000',
}

export const relayerInfoExample: RelayerInfo = {
  feeFloorBps: 10,
  supportedChainIds: [421614],
  relayer: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  signerKind: 'keystore',
}

const failureMessages: Record<RelayErrorCode, string> = {
  MALFORMED_ORDER: 'malformed request: order.amount must be a canonical decimal string (digits only, no sign, no leading zero)',
  ORDERHASH_MISMATCH: `orderHash does not match the order (recomputed ${orderHash}); re-encode the order`,
  FEE_BELOW_FLOOR: "feeBps 5 is below this relayer's floor of 10; raise feeBps or choose another relayer (GET /info)",
  WOULD_REVERT: 'would revert: AllocationSoldOut(vaultId=7)',
  AUTH_EXPIRED: 'authorization window has passed (validBefore 1732366800, chain time 1732366812); re-sign with a fresh window',
  INSUFFICIENT_RELAYER_GAS: 'relayer gas account cannot pay for gas; try another relayer or run your own',
  UPSTREAM_RPC: "the relayer's RPC failed; retry or try another relayer",
}

/** One named example per relayer code. */
export function failureExamples(codes: readonly RelayErrorCode[]): Record<string, NamedExample> {
  return Object.fromEntries(
    codes.map((code) => {
      const value: RelayFailure = { ok: false, code, message: failureMessages[code] }
      return [code, { summary: code, value }]
    }),
  )
}

const edgeMessages = {
  RATE_LIMITED: 'rate limit exceeded for this client (5 requests/s, burst 20); retry after 1 s',
  SERVER_BUSY: 'relayer is at its concurrency cap (64 orders in flight); retry shortly or use another relayer',
  INSUFFICIENT_RELAYER_GAS:
    'relayer gas balance is below its floor, so POST /broker is paused until it is topped up; try another relayer or run your own',
} as const

/** Named examples of edge rejections with the given codes. */
export function edgeExamples(codes: readonly (keyof typeof edgeMessages)[]): Record<string, NamedExample> {
  return Object.fromEntries(
    codes.map((code) => {
      const value: EdgeRejection = { ok: false, code, message: edgeMessages[code] }
      return [code, { summary: `${code} (hardened edge)`, value }]
    }),
  )
}

export const readyExample: Readiness = {
  ready: true,
  checks: [
    { name: 'rpc', ok: true },
    { name: 'chain', ok: true },
    { name: 'balance', ok: true },
    { name: 'journal', ok: true },
    { name: 'key', ok: true },
    { name: 'spending', ok: true },
  ],
}

export const notReadyExample: Readiness = {
  ready: false,
  reason:
    "the gas key's balance 120000000000000 wei is below the floor 1000000000000000 wei (RELAYER_GAS_FLOOR_WEI): send native gas to 0xa0Ee7A142d267C1f36714E4a8F75612F20a79720",
  checks: [
    { name: 'rpc', ok: true },
    { name: 'chain', ok: true },
    {
      name: 'balance',
      ok: false,
      reason:
        "the gas key's balance 120000000000000 wei is below the floor 1000000000000000 wei (RELAYER_GAS_FLOOR_WEI): send native gas to 0xa0Ee7A142d267C1f36714E4a8F75612F20a79720",
    },
    { name: 'journal', ok: true },
  ],
}

export const relayerStatusExample: RelayerStatus = {
  version: '0.1.0',
  address: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
  chainId: 421614,
  uptimeSeconds: 3600,
  balanceWei: '9998000000000000000',
  gasFloorWei: '1000000000000000',
  feeFloorBps: 0,
  ordersPerMinute: { OK: 42, WOULD_REVERT: 1 },
  latencySeconds: { count: 43, p50: 0.21, p90: 0.34, p99: 0.52 },
  inflight: 2,
  pendingTransactions: 1,
  nonceGap: 0,
  nonces: { latest: 1200, pending: 1201 },
  signer: { kind: 'remote', description: 'https://signer.internal:9000', up: true },
  economics: {
    tokens: [{ token: '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d', feesEarned: '60000000', feesEarnedWei: '24000000000000000', orders: 1200, unvaluedOrders: 0 }],
    feesEarnedWei: '24000000000000000',
    gasSpentWei: '2400000000000000',
    netWei: '21600000000000000',
    lastHour: { spentWei: '120000000000000', reservedWei: '3000000000000', capWei: '50000000000000000', unpricedSpentWei: '0', unpricedBudgetWei: '0' },
    runwayHours: 83316.6,
    gasPriceWei: '20000000',
    maxFeePerGasWei: '1000000000',
  },
}

export const brokerStatusExample: BrokerStatus = {
  orderHash,
  status: 'settled',
  txHash: relaySuccessExample.txHash as BrokerStatus['txHash'],
  blockNumber: '1234567',
  confirmations: 20,
  final: true,
}

export const notFoundExample: RouteFailure = { ok: false, code: 'NOT_FOUND', message: 'no such route: GET /api/openapi.json lists the routes this relayer serves' }

export const methodNotAllowedExample: RouteFailure = { ok: false, code: 'METHOD_NOT_ALLOWED', message: 'this route answers GET, HEAD, OPTIONS only (the Allow header lists them)' }
