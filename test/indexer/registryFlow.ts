import { encodeFunctionData, type Hex, keccak256, maxUint256, stringToHex, type TransactionReceipt } from 'viem'
import { lienEscrowAbi, lienInboxAbi, lienPoolAbi, mockEIP3009TokenAbi } from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, usdc } from '../../src/devnet/index.ts'

/**
 * Runs a whole lien life on the devnet: the lender proposes, the borrower confirms
 * (recorded), the lender deposits and funds it, the borrower repays in full
 * (released). Returns the lien and each step's receipt.
 */
export async function runRegistryFlow(devnet: Devnet, label: string) {
  const { contracts } = devnet.manifest
  const lienId: Hex = keccak256(stringToHex(`indexer test lien ${label}`))
  const amount = 250n * usdc
  const expiresAt = (await devnet.publicClient.getBlock()).timestamp + 30n * 24n * 3600n
  const lender = devnet.wallet('lender')
  const borrower = devnet.wallet('borrower')

  async function send(role: 'lender' | 'borrower', request: { address: Hex; abi: unknown; functionName: string; args: unknown[] }) {
    const client = role === 'lender' ? lender : borrower
    const hash = await client.writeContract(request as Parameters<typeof client.writeContract>[0])
    const receipt = await devnet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    if (receipt.status !== 'success') throw new Error(`${request.functionName} reverted`)
    return receipt
  }

  const receipts: Record<string, TransactionReceipt> = {}
  receipts.propose = await send('lender', { address: contracts.inbox, abi: lienInboxAbi, functionName: 'propose', args: [lienId, devnetAccounts.borrower.address, expiresAt] })
  receipts.confirm = await send('borrower', { address: contracts.inbox, abi: lienInboxAbi, functionName: 'confirm', args: [lienId] })
  await send('lender', { address: contracts.payToken, abi: mockEIP3009TokenAbi, functionName: 'approve', args: [contracts.pool, amount] })
  receipts.deposit = await send('lender', { address: contracts.pool, abi: lienPoolAbi, functionName: 'deposit', args: [amount] })
  receipts.fund = await send('lender', { address: contracts.pool, abi: lienPoolAbi, functionName: 'fund', args: [lienId, amount] })
  await send('borrower', { address: contracts.payToken, abi: mockEIP3009TokenAbi, functionName: 'approve', args: [contracts.escrow, amount] })
  receipts.repay = await send('borrower', { address: contracts.escrow, abi: lienEscrowAbi, functionName: 'repay', args: [lienId, amount] })
  return { lienId, amount, expiresAt, receipts: receipts as Record<'propose' | 'confirm' | 'deposit' | 'fund' | 'repay', TransactionReceipt> }
}

/** Where the n-th log of `receipt` emitted by one of `addresses` sits: block, index, tx. */
export function logPositions(receipt: TransactionReceipt, addresses: readonly string[]) {
  const ours = new Set(addresses.map((a) => a.toLowerCase()))
  return receipt.logs
    .filter((log) => ours.has(log.address.toLowerCase()))
    .map((log) => ({ blockNumber: receipt.blockNumber.toString(), logIndex: log.logIndex, transactionHash: receipt.transactionHash }))
}

/** The lender proposes one lien (one LienProposed event); returns its id and receipt. */
export async function proposeLien(devnet: Devnet, label: string) {
  const lienId = keccak256(stringToHex(`indexer test proposal ${label}`))
  const expiresAt = (await devnet.publicClient.getBlock()).timestamp + 86_400n
  const hash = await devnet.wallet('lender').writeContract({
    address: devnet.manifest.contracts.inbox,
    abi: lienInboxAbi,
    functionName: 'propose',
    args: [lienId, devnetAccounts.borrower.address, expiresAt],
  })
  const receipt = await devnet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
  return { lienId, receipt }
}

/**
 * Fills the devnet with `count` registry events cheaply: the lender (an unlocked anvil
 * account, so anvil signs) deposits into the pool, `perBlock` transactions a block,
 * each block one JSON-RPC batch ending in `evm_mine`, with automine off.
 */
export async function depositMany(devnet: Devnet, count: number, perBlock = 25) {
  const { pool, payToken } = devnet.manifest.contracts
  const from = devnetAccounts.lender.address
  type Answer = { result?: unknown; error?: { message: string } }
  const post = async (body: unknown): Promise<Answer[]> => {
    const answer = (await (await fetch(devnet.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as Answer | Answer[]
    const answers = Array.isArray(answer) ? answer : [answer]
    for (const each of answers) if (each.error) throw new Error(`anvil refused a call: ${each.error.message}`)
    return answers
  }
  const call = (method: string, params: unknown[], id = 1) => ({ jsonrpc: '2.0', id, method, params })
  const [approved] = await post(call('eth_sendTransaction', [{ from, to: payToken, data: encodeFunctionData({ abi: mockEIP3009TokenAbi, functionName: 'approve', args: [pool, maxUint256] }) }]))
  await devnet.publicClient.waitForTransactionReceipt({ hash: approved!.result as Hex, pollingInterval: 20 })
  const deposit = encodeFunctionData({ abi: lienPoolAbi, functionName: 'deposit', args: [1n] })
  // Each tx names its nonce: left to anvil, two sends of one batch could be given the same one (the same tx twice, refused as already imported).
  let nonce = await devnet.publicClient.getTransactionCount({ address: from, blockTag: 'pending' })
  await post(call('evm_setAutomine', [false]))
  try {
    for (let done = 0; done < count; ) {
      const batch = []
      for (let i = 0; i < perBlock && done < count; i++, done++) batch.push(call('eth_sendTransaction', [{ from, to: pool, gas: '0x249f0', data: deposit, nonce: `0x${(nonce++).toString(16)}` }], i))
      batch.push(call('evm_mine', [], perBlock))
      await post(batch)
    }
  } finally {
    await post(call('evm_setAutomine', [true]))
  }
}
