// Arbitrum-family chains charge each tx an L1 data component, in L2 gas, read from
// NodeInterface's gasEstimateL1Component (0x…C8, answered by Arbitrum nodes through
// eth_call). On the devnet a contract that answers like it is put at that address; a
// relayer that finds it there prices every order with it.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Address, Hex } from 'viem'
import { mockNodeInterfaceAbi, mockNodeInterfaceBytecode } from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { nodeInterfaceAddress } from '../../src/relayer/economics/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { deploy, write } from '../relayer/support/chain.ts'
import { nonces } from './support.ts'

let devnet: Devnet
let relayer: TestRelayer
const key = devnetAccounts.relayer.address as Address

beforeAll(async () => {
  devnet = await startDevnet()
  // NodeInterface's stand-in: its runtime code at 0x…C8, charging 4,000 L2 gas per calldata byte.
  const deployed = await deploy(devnet, mockNodeInterfaceAbi, mockNodeInterfaceBytecode)
  await devnet.testClient.setCode({ address: nodeInterfaceAddress, bytecode: (await devnet.publicClient.getCode({ address: deployed }))! })
  await write(devnet, 'deployer', { address: nodeInterfaceAddress, abi: mockNodeInterfaceAbi, functionName: 'setGasPerByte', args: [4_000n] })
  relayer = await startTestRelayer(devnet)
}, 60_000)
afterAll(async () => {
  await relayer?.stop()
  await devnet?.stop()
})

test('the relayer finds NodeInterface at start and says so', () => {
  expect(relayer.logger.lines).toContain(`L1 data component: read from NodeInterface (${nodeInterfaceAddress}) for every order and priced with its gas`)
})

test('an order is priced with its L1 data gas: refused at the usual fee, naming that gas; settled with a fee that covers it', async () => {
  const before = await nonces(devnet, key)
  const usual = await signed(devnet, allocationOrder(devnet))
  const refused = await relayer.post(usual)
  expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 402, code: 'FEE_BELOW_FLOOR' })
  const data = (usual.order.params.length - 2) / 2
  const l1 = String(refused.body.message).match(/\+ (\d+) gas of L1 data at (\d+) wei/)
  expect(l1, String(refused.body.message)).not.toBeNull()
  // 4,000 gas per byte of the broker call (its params and the rest of the order and signature).
  expect(BigInt(l1![1]!) % 4_000n).toBe(0n)
  expect(BigInt(l1![1]!)).toBeGreaterThan(BigInt(4_000 * (data + 400)))
  expect(await nonces(devnet, key)).toEqual(before)
  const needed = Number(String(refused.body.message).match(/\(feeBps (\d+) of this amount\) would pass/)![1])
  const paid = await relayer.post(await signed(devnet, allocationOrder(devnet, { feeBps: needed + 10 })))
  expect(paid.status).toBe(200)
})

test('a chain without NodeInterface (code removed): a relayer started there prices no L1 component, and the usual order settles', async () => {
  await devnet.testClient.setCode({ address: nodeInterfaceAddress, bytecode: '0x' as Hex })
  const plain = await startTestRelayer(devnet, { env: { RELAYER_PK: devnetAccounts.secondRelayer.privateKey } })
  try {
    expect(plain.logger.lines.some((line) => line.startsWith('L1 data component'))).toBe(false)
    expect((await plain.post(await signed(devnet, allocationOrder(devnet)))).status).toBe(200)
  } finally {
    await plain.stop()
  }
})
