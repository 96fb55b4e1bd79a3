// The payment rule end to end (docs/contracts.md): through POST /broker, an order paying the wrong payee, token or
// amount is refused 422 WOULD_REVERT naming WrongPayment(…) from the simulation, before
// any gas is spent (the relayer key's nonce is unchanged); the right payment settles.
import { describe, expect, test } from 'bun:test'
import { type Address, encodeDeployData, encodeFunctionData, getAddress } from 'viem'
import { mockEIP3009TokenAbi, mockEIP3009TokenBytecode } from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, devnetPrice, usdc } from '../../src/devnet/index.ts'
import { fixFor, type Order, type RelayRequest } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { type TestRelayer, useDevnetWithRelayer } from '../helpers/relayer.ts'
import { sendOk } from './harness.ts'

let devnet: Devnet
let relayer: TestRelayer
// The other token this file deploys has no price: an hourly budget for such tokens lets its
// order reach the simulation, where the adapter names the wrong payment.
useDevnetWithRelayer(
  (d, r) => {
    devnet = d
    relayer = r
  },
  { env: { RELAYER_UNPRICED_GAS_BUDGET_WEI: '10000000000000000' } },
)

/** Posts the request and checks the relayer key sent nothing for it. */
async function postWithoutGas(request: RelayRequest) {
  const address = devnetAccounts.relayer.address
  const before = await devnet.publicClient.getTransactionCount({ address, blockTag: 'pending' })
  const answer = await relayer.post(request)
  expect(await devnet.publicClient.getTransactionCount({ address, blockTag: 'pending' })).toBe(before)
  return answer
}

async function otherToken(): Promise<Address> {
  const { contractAddress } = await sendOk(devnet, 'deployer', {
    data: encodeDeployData({ abi: mockEIP3009TokenAbi, bytecode: mockEIP3009TokenBytecode, args: ['Other USD', '1'] }),
  })
  const token = getAddress(contractAddress!)
  await sendOk(devnet, 'deployer', { to: token, data: encodeFunctionData({ abi: mockEIP3009TokenAbi, functionName: 'mint', args: [devnetAccounts.consumer.address, 100n * usdc] }) })
  return token
}

describe('POST /broker refuses an order that does not pay the price', () => {
  const cases: [string, () => Promise<Partial<Order>>][] = [
    ['the wrong payee (the consumer paying itself)', async () => ({ payee: devnetAccounts.consumer.address })],
    ['the wrong amount (1 base unit short)', async () => ({ amount: (devnetPrice - 1n).toString() })],
    ['the wrong token', async () => ({ payToken: await otherToken() })],
  ]
  for (const [name, override] of cases) {
    test(name, async () => {
      const order = allocationOrder(devnet, await override())
      const { status, body } = await postWithoutGas(await signed(devnet, order))
      // What was paid comes from the revert; what to pay instead, from the adapter's vaultPayment.
      const asked = `amount=${devnetPrice} of payToken=${getAddress(devnet.manifest.contracts.payToken)} paid to payee=${devnetAccounts.payee.address}`
      expect({ status, body }).toEqual({
        status: 422,
        body: {
          ok: false,
          code: 'WOULD_REVERT',
          message: `would revert: WrongPayment(token=${getAddress(order.payToken)}, payee=${order.payee}, amount=${order.amount}); the adapter asks for ${asked}`,
          revert: { name: 'WrongPayment', args: { token: getAddress(order.payToken), payee: order.payee, amount: String(order.amount) }, selector: expect.stringMatching(/^0x[0-9a-f]{8}$/), data: expect.stringMatching(/^0x[0-9a-f]+$/) },
        },
      })
      expect(fixFor('WOULD_REVERT', String(body.message))).toBe(
        `The order does not pay what the adapter asks: sign a new order with payToken ${getAddress(devnet.manifest.contracts.payToken)}, payee ${devnetAccounts.payee.address} and amount ${devnetPrice} (the relayer's fee comes out of that amount).`,
      )
    })
  }

  test('the devnet price (10 USDC to the devnet payee in the manifest payToken) settles', async () => {
    const { status, body } = await relayer.post(await signed(devnet, allocationOrder(devnet)))
    expect(status).toBe(200)
    expect(body.ok).toBe(true)
  })
})
