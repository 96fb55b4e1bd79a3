// A dApp page, bundled by bun's bundler from the installed tarball: reads a relayer's
// `/info` cross-origin, signs with a viem local account and posts `/broker`.
import { createRelayClient, signOrder, SubmitError } from 'order-relay/client'
import { createPublicClient, encodeAbiParameters, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

window.relayFromPage = async (input) => {
  const client = createRelayClient({ url: input.relayerUrl })
  const info = await client.info()
  const account = privateKeyToAccount(input.consumerKey)
  const order = {
    consumer: account.address,
    adapter: input.allocationAdapter,
    params: encodeAbiParameters([{ type: 'uint256' }], [1n]),
    payToken: input.payToken,
    payee: input.payee,
    amount: '10000000',
    nonce: input.nonce,
    feeBps: Math.max(50, info.feeFloorBps),
  }
  const publicClient = createPublicClient({ transport: http(input.rpcUrl) })
  const request = await signOrder({ account, order, broker: input.broker, chainId: info.supportedChainIds[0], client: publicClient })
  try {
    const success = await client.broker(request)
    return { info, ok: success.ok, txHash: success.txHash, orderHash: success.orderHash, requestOrderHash: request.orderHash, event: success.receipt.event }
  } catch (error) {
    if (error instanceof SubmitError) return { info, code: error.code, status: error.status, message: error.message }
    throw error
  }
}
