import { encodeFunctionData, type Hex, maxUint256, numberToHex } from 'viem'
import { lienPoolAbi, mockEIP3009TokenAbi } from '../../../src/chain/index.ts'
import { type Devnet, devnetAccounts } from '../../../src/devnet/index.ts'
import { rpc, rpcBatch } from './rpc.ts'

/**
 * Fills a devnet with `count` registry events cheaply: `LienPool.deposit(1)` from the
 * lender (an unlocked anvil account, so anvil signs), `perBlock` transactions per
 * block, each block sent as one JSON-RPC batch ending in `evm_mine` with automine off.
 * Deposits rewrite the same storage slots, so the state does not grow with the count
 * (50,000 `LienInbox.propose` took five minutes here: each adds storage). Returns the
 * head once everything is mined.
 */
export async function generateRegistryEvents(devnet: Devnet, count: number, perBlock: number, onProgress?: (done: number) => void): Promise<bigint> {
  const { pool, payToken } = devnet.manifest.contracts
  const gas = numberToHex(150_000)
  const from = devnetAccounts.lender.address
  const approve = encodeFunctionData({ abi: mockEIP3009TokenAbi, functionName: 'approve', args: [pool, maxUint256] })
  await rpc(devnet.rpcUrl, 'eth_sendTransaction', [{ from, to: payToken, data: approve }])
  const deposit = encodeFunctionData({ abi: lienPoolAbi, functionName: 'deposit', args: [1n] })
  await rpc(devnet.rpcUrl, 'evm_setAutomine', [false])
  try {
    for (let done = 0; done < count; ) {
      const calls: { method: string; params: unknown[] }[] = []
      for (let i = 0; i < perBlock && done < count; i++, done++) {
        calls.push({ method: 'eth_sendTransaction', params: [{ from, to: pool, gas, data: deposit }] })
      }
      calls.push({ method: 'evm_mine', params: [] })
      await rpcBatch(devnet.rpcUrl, calls)
      if (onProgress && done % 10_000 < perBlock) onProgress(done)
    }
  } finally {
    await rpc(devnet.rpcUrl, 'evm_setAutomine', [true])
  }
  return BigInt(await rpc<Hex>(devnet.rpcUrl, 'eth_blockNumber'))
}

/** The four registry addresses in the indexer's order. */
export const registryAddresses = (devnet: Devnet) => {
  const { registry, inbox, pool, escrow } = devnet.manifest.contracts
  return [registry, inbox, pool, escrow] as const
}
