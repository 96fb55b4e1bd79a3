// What `order-relay order` pays (src/cli/lib/buildOrderParams.ts orderPayment): a vault the
// manifest lists pays its manifest price and payee; otherwise the adapter's own answer on
// chain (vaultPayment, defaultPayment for the lane, claimPayment for an attested claim's kind).
import { expect, test } from 'bun:test'
import { keccak256, type PublicClient, slice, stringToHex } from 'viem'
import { allocationAdapterAbi, attestedAdapterAbi, encodeAttestedParams } from '../../src/chain/index.ts'
import { orderPayment } from '../../src/cli/lib/buildOrderParams.ts'
import { type Devnet, devnetAccounts, devnetPrice, usdc } from '../../src/devnet/index.ts'
import { callOf, contractsOf, sendOk, useSnapshottedDevnet } from './harness.ts'

let devnet: Devnet
useSnapshottedDevnet((started) => (devnet = started))

const client = () => devnet.publicClient as PublicClient
const payee = devnetAccounts.payee.address

test('the devnet manifest lists vault 1 at 10 USDC to the devnet payee, and the order pays that', async () => {
  expect(devnet.manifest.vaults).toEqual([{ vaultId: '1', slots: 1000, price: '10000000', payee }])
  expect(await orderPayment('allocation', devnet.manifest, client(), { vaultId: 1n, params: '0x' })).toEqual({
    token: devnet.manifest.contracts.payToken,
    payee,
    price: devnetPrice,
  })
})

test('a vault the manifest does not list: the adapter says its price', async () => {
  const { allocationAdapter, payToken } = contractsOf(devnet)
  await sendOk(devnet, 'deployer', callOf(allocationAdapter, allocationAdapterAbi, 'setVaultPayment', [5n, payToken, devnetAccounts.spare.address, 7n * usdc]))
  expect(await orderPayment('allocation', devnet.manifest, client(), { vaultId: 5n, params: '0x' })).toEqual({
    token: payToken,
    payee: devnetAccounts.spare.address,
    price: 7n * usdc,
  })
})

test('the express lane pays the adapter default; an attested claim pays its kind', async () => {
  const { attestedAdapter, payToken } = contractsOf(devnet)
  expect(await orderPayment('express-lane', devnet.manifest, client(), { vaultId: 1n, params: '0x' })).toEqual({ token: payToken, payee, price: devnetPrice })
  const claim = keccak256(stringToHex('a priced kind'))
  await sendOk(devnet, 'deployer', callOf(attestedAdapter, attestedAdapterAbi, 'setClaimPayment', [slice(claim, 0, 4), payToken, payee, 25n * usdc]))
  const params = encodeAttestedParams({ claim, notAfter: 1n, signature: '0x' })
  expect(await orderPayment('attested', devnet.manifest, client(), { vaultId: 1n, params })).toEqual({ token: payToken, payee, price: 25n * usdc })
})
