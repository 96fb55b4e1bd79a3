// Gas-limit poisoning (docs/relayer-edges.md, "Gas limits"): orders paid in a gas-heavy token must not
// raise the limit (and so the gas reserved and the fee risk) of orders paid in the
// usual token to the same adapter. Real anvil, real contracts, real HTTP.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Address, Hex } from 'viem'
import { allocationAdapterAbi, gasHeavyEIP3009TokenAbi, gasHeavyEIP3009TokenBytecode } from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, devnetPrice, devnetTokenPrice, manifestTokensVariable, startDevnet, usdc } from '../../src/devnet/index.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'

let devnet: Devnet
let relayer: TestRelayer
let heavyToken: Address
const relayerAddress = devnetAccounts.relayer.address

beforeAll(async () => {
  // Vault 2 is sold in the heavy token (an adapter grants only what was paid for, in its token).
  devnet = await startDevnet({ vaults: [{ vaultId: 1n, slots: 1000 }, { vaultId: 2n, slots: 1000 }] })
  const deployer = devnet.wallet('deployer')
  const hash = await deployer.deployContract({ abi: gasHeavyEIP3009TokenAbi, bytecode: gasHeavyEIP3009TokenBytecode, args: ['USD Coin', '2', 3_000n] })
  heavyToken = (await devnet.publicClient.waitForTransactionReceipt({ hash })).contractAddress as Address
  const mint = await deployer.writeContract({ address: heavyToken, abi: gasHeavyEIP3009TokenAbi, functionName: 'mint', args: [devnetAccounts.consumer.address, 1_000n * usdc] })
  await devnet.publicClient.waitForTransactionReceipt({ hash: mint })
  const price = await deployer.writeContract({
    address: devnet.manifest.contracts.allocationAdapter,
    abi: allocationAdapterAbi,
    functionName: 'setVaultPayment',
    args: [2n, heavyToken, devnetAccounts.payee.address, devnetPrice],
  })
  await devnet.publicClient.waitForTransactionReceipt({ hash: price })
  // Both tokens valued alike (the relayer refuses a token it has no price for).
  relayer = await startTestRelayer(devnet, { env: { RELAYER_TOKENS: `${manifestTokensVariable(devnet.manifest).RELAYER_TOKENS},${heavyToken}=${devnetTokenPrice}` } })
}, 60_000)
afterAll(async () => {
  await relayer?.stop()
  await devnet?.stop()
})

async function settle(payToken?: Address) {
  // The heavy token's orders cost several times the gas: their fee is raised to pay for it.
  const request = await signed(devnet, allocationOrder(devnet, payToken ? { payToken, params: vaultParams(2n), feeBps: 300 } : {}))
  const answer = await relayer.post(request)
  expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 200, code: undefined })
  const txHash = answer.body.txHash as Hex
  const [tx, receipt] = await Promise.all([devnet.publicClient.getTransaction({ hash: txHash }), devnet.publicClient.getTransactionReceipt({ hash: txHash })])
  expect(receipt.status).toBe('success')
  return { orderHash: request.orderHash, txHash, gasLimit: tx.gas, gasUsed: receipt.gasUsed }
}

test('a gas-heavy pay token gets its own limit; the usual token keeps its own', async () => {
  const nonceBefore = await devnet.publicClient.getTransactionCount({ address: relayerAddress })
  const first = await settle()
  const heavy = await settle(heavyToken)
  const after = await settle()
  const heavyAgain = await settle(heavyToken)

  // The heavy token costs several times more, and its limit covers it...
  expect(heavy.gasUsed).toBeGreaterThan(first.gasUsed * 3n)
  expect(heavy.gasLimit).toBeGreaterThanOrEqual(heavy.gasUsed)
  // ...while the usual token's limit is exactly what it was before the heavy order.
  expect(after.gasLimit).toBe(first.gasLimit)
  expect(heavyAgain.gasLimit).toBe(heavy.gasLimit)
  expect(first.gasLimit).toBeLessThan(heavy.gasUsed)

  // Money safety: four orders, four distinct settlements, no revert, nothing pending.
  expect(new Set([first, heavy, after, heavyAgain].map((s) => s.orderHash)).size).toBe(4)
  expect(new Set([first, heavy, after, heavyAgain].map((s) => s.txHash)).size).toBe(4)
  expect(await devnet.publicClient.getTransactionCount({ address: relayerAddress })).toBe(nonceBefore + 4)
  expect(await devnet.publicClient.getTransactionCount({ address: relayerAddress, blockTag: 'pending' })).toBe(nonceBefore + 4)
}, 60_000)
