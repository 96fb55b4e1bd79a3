// Run by Node (not Bun) from a project that installed the packed tarball: imports the
// built `order-relay/client` and `order-relay/wire`, signs one order and settles it.
// Input: one JSON argument; output: one JSON line.
import { chooseRelayer, createRelayClient, signOrder, SubmitError } from 'order-relay/client'
import { hashOrder, RelaySuccessSchema } from 'order-relay/wire'
import { createPublicClient, encodeAbiParameters, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const input = JSON.parse(process.argv[2])
const account = privateKeyToAccount(input.consumerKey)
const publicClient = createPublicClient({ transport: http(input.rpcUrl) })

const { chosen, skipped } = await chooseRelayer([input.relayerUrl], { chainId: input.chainId, feeBps: 50 })
if (!chosen) throw new Error(skipped.map((s) => `${s.url}: ${s.message}`).join('\n'))
const order = {
  consumer: account.address,
  adapter: input.allocationAdapter,
  params: encodeAbiParameters([{ type: 'uint256' }], [1n]), // vault 1
  payToken: input.payToken,
  payee: input.payee,
  amount: '10000000', // 10 USDC (6 decimals)
  nonce: input.nonce,
  feeBps: 50,
}
const request = await signOrder({ account, order, broker: input.broker, chainId: input.chainId, client: publicClient })
try {
  const success = await createRelayClient({ url: chosen.url }).broker(request)
  console.log(JSON.stringify({
    node: process.version,
    orderHash: hashOrder(order),
    requestOrderHash: request.orderHash,
    schemaAccepts: RelaySuccessSchema !== undefined,
    ok: success.ok,
    txHash: success.txHash,
    answeredOrderHash: success.orderHash,
    feeCollected: success.feeCollected,
    receipt: success.receipt,
  }))
} catch (error) {
  if (error instanceof SubmitError) console.log(JSON.stringify({ code: error.code, status: error.status, message: error.message }))
  else throw error
}
