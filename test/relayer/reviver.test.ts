// The reviver against a node that keeps a priced-out transaction in its pool, as geth
// does and anvil cannot (anvil evicts it: droppedTransaction.test.ts covers that
// path on a real chain). The node is a fake answering the three calls involved.
import { expect, test } from 'bun:test'
import { type Hex, type PublicClient, parseTransaction } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { createReviver } from '../../src/relayer/submitter/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { keccak256, keccakReady } from '../../src/wire/index.ts'

const account = privateKeyToAccount(devnetAccounts.relayer.privateKey)
const gwei = 10n ** 9n

/** A node whose pool holds every tx sent to it, unmined, with the given base fee. */
function poolNode(baseFeePerGas: bigint) {
  const pool = new Map<Hex, Hex>()
  const client = {
    request: async ({ method, params }: { method: string; params: [Hex] }) => {
      if (method === 'eth_getTransactionByHash') return pool.has(params[0]) ? { hash: params[0], blockNumber: null } : null
      if (method === 'eth_sendRawTransaction') {
        pool.set(keccak256(params[0]), params[0])
        return keccak256(params[0])
      }
      throw new Error(`unexpected ${method}`)
    },
    getBlock: async () => ({ baseFeePerGas }),
  } as unknown as PublicClient
  return { client, pool }
}

async function sentAt(node: ReturnType<typeof poolNode>, maxFeePerGas: bigint) {
  const tx = { to: devnetAccounts.spare.address, data: '0x1234' as Hex, gas: 100_000n, nonce: 7 }
  const fees = { maxFeePerGas, maxPriorityFeePerGas: gwei }
  const serialized = await account.signTransaction({ type: 'eip1559', chainId: 421614, ...tx, ...fees })
  await node.client.request({ method: 'eth_sendRawTransaction', params: [serialized] })
  return { hash: keccak256(serialized), sent: { ...tx, fees, serialized } }
}

/** A reviver that sent one tx (fee cap `feeCap`) to a node whose base fee is `baseFee`; fresh fees are 61 gwei. */
async function pooledAt({ baseFee, feeCap }: { baseFee: bigint; feeCap: bigint }) {
  await keccakReady
  const node = poolNode(baseFee)
  const logger = createMemoryLogger()
  const reviver = createReviver({ client: node.client, account, chainId: 421614, logger, freshFees: async () => ({ maxFeePerGas: 61n * gwei, maxPriorityFeePerGas: gwei }) })
  const { hash, sent } = await sentAt(node, feeCap)
  reviver.remember(hash, sent)
  return { node, logger, reviver, hash, sent }
}

test('a pooled tx whose fee cap is under the base fee is replaced: same nonce, call and gas, a higher fee', async () => {
  const { node, logger, reviver, hash, sent } = await pooledAt({ baseFee: 30n * gwei, feeCap: 10n * gwei })

  const replacement = await reviver.revive(hash)
  expect(replacement).not.toBe(hash)
  const signed = parseTransaction(node.pool.get(replacement!)!)
  expect({ nonce: signed.nonce, to: signed.to, data: signed.data, gas: signed.gas }).toEqual({ nonce: 7, to: sent.to.toLowerCase() as Hex, data: sent.data, gas: sent.gas })
  expect(signed.maxFeePerGas).toBe(61n * gwei)
  // Both fees at least 12.5 % over the old ones (nodes require 10 % to replace).
  expect(signed.maxPriorityFeePerGas).toBe(gwei + gwei / 8n)
  expect(logger.lines).toEqual([`warn: tx ${hash} is priced out of blocks (the base fee rose above its fee cap); replaced it by tx ${replacement} at a higher fee`])
  // The replacement is what is kept alive from now on.
  expect(await reviver.revive(replacement!)).toBe(replacement)
})

test('a pooled tx that can still pay the base fee is left alone', async () => {
  const { node, logger, reviver, hash } = await pooledAt({ baseFee: 5n * gwei, feeCap: 10n * gwei })
  expect(await reviver.revive(hash)).toBe(hash)
  expect(node.pool.size).toBe(1)
  expect(logger.lines).toEqual([])
})

test('a hash the reviver never sent is not its to revive', async () => {
  const reviver = createReviver({ client: poolNode(gwei).client, account, chainId: 421614, logger: createMemoryLogger(), freshFees: async () => ({ maxFeePerGas: gwei, maxPriorityFeePerGas: gwei }) })
  expect(await reviver.revive(`0x${'00'.repeat(32)}`)).toBeUndefined()
})
