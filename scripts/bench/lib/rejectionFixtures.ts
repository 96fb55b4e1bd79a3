import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { signOrder } from '../../../src/client/index.ts'
import { createRelayer, readRelayerConfig } from '../../../src/relayer/index.ts'
import type { Logger } from '../../../src/shared/index.ts'
import { keccakReady } from '../../../src/wire/index.ts'

// What the rejection profiles (scripts/profile-rejections*.ts) refuse, and who refuses it.

const address = (byte: string) => `0x${byte.repeat(20)}` as const
const chainId = 31337

export type RejectionBody = 'malformed' | 'belowFloor'

/** A signed order with feeBps 50 (the relayer's floor below is 100) and the same order with a fractional amount: `FEE_BELOW_FLOOR` and `MALFORMED_ORDER`. */
export async function rejectionBodies(): Promise<Record<RejectionBody, string>> {
  const consumer = privateKeyToAccount(generatePrivateKey())
  const request = await signOrder({
    account: consumer,
    order: { consumer: consumer.address, adapter: address('0a'), params: `0x${'00'.repeat(31)}01`, payToken: address('0b'), payee: address('0c'), amount: '10000000', nonce: '123456789012345678901234567890', feeBps: 50 },
    broker: address('0d'),
    chainId,
    domain: { name: 'USD Coin', version: '2', chainId, verifyingContract: address('0b') },
    validBefore: BigInt(Math.floor(Date.now() / 1000) + 86_400),
  })
  return { malformed: JSON.stringify({ ...request, order: { ...request.order, amount: '10.5' } }), belowFloor: JSON.stringify(request) }
}

/**
 * A relayer for those bodies, fee floor 100, journal in memory, its fast Keccak loaded.
 * No chain: it is built against an RPC URL it never calls, as a rejection never reaches
 * the node (`serve` is never called).
 */
export async function rejectingRelayer(logger: Logger) {
  const config = readRelayerConfig({ RELAYER_PK: generatePrivateKey(), RELAYER_CHAIN_ID: String(chainId), RELAYER_RPC_URL: 'http://127.0.0.1:9', RELAYER_BROKER: address('0d'), RELAYER_FEE_FLOOR_BPS: '100', RELAYER_DB: ':memory:' })
  const relayer = createRelayer(config, { logger, version: 'profile' })
  await keccakReady
  return relayer
}
