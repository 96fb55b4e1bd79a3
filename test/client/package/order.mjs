import { readFileSync } from 'node:fs'
import { chooseRelayer, createRelayClient, signOrder, SubmitError } from 'order-relay/client'
import { hashOrder } from 'order-relay/wire'
import { createPublicClient, encodeAbiParameters, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const manifest = JSON.parse(readFileSync(process.argv[2], 'utf8'))
// The devnet's consumer (anvil's public development key at index 2, `devnetAccounts.consumer`); on a real chain, your own key.
const account = privateKeyToAccount(manifest.accounts.consumer.privateKey)
const publicClient = createPublicClient({ transport: http(manifest.rpcUrl) })

// 1. Choose the cheapest relayer that serves the chain at this fee (reads GET /info of each).
const { chosen, skipped } = await chooseRelayer([manifest.relayerUrl], { chainId: manifest.chainId, feeBps: 50 })
if (!chosen) throw new Error(skipped.map((s) => `${s.url}: ${s.message}`).join('\n'))

// 2. The order: one allocation slot in vault 1, paying 10 USDC (6 decimals) to the vault's payee.
const order = {
  consumer: account.address,
  adapter: manifest.contracts.allocationAdapter,
  params: encodeAbiParameters([{ type: 'uint256' }], [1n]), // abi.encode(uint256 vaultId)
  payToken: manifest.contracts.payToken,
  payee: '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f', // the devnet payee
  amount: '10000000',
  nonce: String(Date.now()), // any uint256 not used before by this consumer
  feeBps: 50, // 0.5 % of amount goes to the relayer
}

// 3. Sign: an EIP-3009 ReceiveWithAuthorization to the Broker whose nonce is hashOrder(order).
const request = await signOrder({ account, order, broker: manifest.contracts.broker, chainId: manifest.chainId, client: publicClient })
if (hashOrder(order) !== request.orderHash) throw new Error('signOrder signed another order')

// 4. Submit: resolves once the transaction is mined and settled.
try {
  const { txHash, feeCollected, receipt } = await createRelayClient({ url: chosen.url }).broker(request)
  // feeCollected '50000' (0.5 % of 10 USDC); receipt.event 'AllocationGranted'
  console.log(JSON.stringify({ txHash, feeCollected, receipt }))
} catch (error) {
  if (!(error instanceof SubmitError)) throw error
  console.log(JSON.stringify({ code: error.code, status: error.status, retryAfter: error.retryAfter, message: error.message }))
  process.exitCode = 1
}
