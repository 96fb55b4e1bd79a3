// A borrower's signed confirmation binds every term (lien id, secured party,
// borrower, expiry, deadline, nonce). On the devnet chain: a front-runner who proposes the
// lien id first, naming himself, cannot have the borrower's signature confirm his proposal
// (the transaction reverts BadSignature()); the lender's own proposal is confirmed by it.
// Funding is the secured party's: a dust loan by anyone else reverts NotSecuredParty.
import { expect, test } from 'bun:test'
import { type Hex, keccak256, parseSignature, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { confirmationTypedData, lienInboxAbi, lienPoolAbi, lienRegistryAbi, mockEIP3009TokenAbi } from '../../src/chain/index.ts'
import { type Devnet, devnetAccounts, usdc } from '../../src/devnet/index.ts'
import { callOf, chainNow, contractsOf, expectRevert, sendOk, useSnapshottedDevnet } from './harness.ts'

let devnet: Devnet
useSnapshottedDevnet((started) => (devnet = started))

const lienId: Hex = keccak256(stringToHex('front-run lien'))
const borrower = privateKeyToAccount(devnetAccounts.borrower.privateKey)
const lender = devnetAccounts.lender.address
const squatter = devnetAccounts.spare.address

/** The borrower's confirmBySig call for the lender's terms. */
async function lenderTermsConfirmation(expiresAt: bigint) {
  const { inbox } = contractsOf(devnet)
  const deadline = (await chainNow(devnet)) + 3600n
  const nonce = 1n
  const signature = await borrower.signTypedData(
    confirmationTypedData({ chainId: devnet.chainId, inbox, lienId, securedParty: lender, borrower: borrower.address, expiresAt, deadline, nonce }),
  )
  const { v, r, s } = parseSignature(signature)
  return callOf(inbox, lienInboxAbi, 'confirmBySig', [lienId, deadline, nonce, Number(v), r, s])
}

const lienState = () => devnet.publicClient.readContract({ address: contractsOf(devnet).registry, abi: lienRegistryAbi, functionName: 'liens', args: [lienId] })

test("a front-runner's proposal is not confirmed by the borrower's signature: BadSignature() on chain", async () => {
  const { inbox, payToken } = contractsOf(devnet)
  const expiresAt = (await chainNow(devnet)) + 30n * 86400n
  await sendOk(devnet, 'spare', callOf(inbox, lienInboxAbi, 'propose', [lienId, borrower.address, expiresAt]))
  await expectRevert(devnet, {
    call: await lenderTermsConfirmation(expiresAt),
    expected: 'BadSignature()',
    watch: { token: payToken, holders: [], extra: [lienState] },
  })
  const [, , recorded] = await lienState()
  expect(recorded).toBe(false)
  const [securedParty] = await devnet.publicClient.readContract({ address: inbox, abi: lienInboxAbi, functionName: 'proposals', args: [lienId] })
  expect(securedParty).toBe(squatter)
})

test("the lender's own proposal is confirmed by the same signature, and only the lender may fund it", async () => {
  const { inbox, pool, payToken } = contractsOf(devnet)
  const expiresAt = (await chainNow(devnet)) + 30n * 86400n
  await sendOk(devnet, 'lender', callOf(inbox, lienInboxAbi, 'propose', [lienId, borrower.address, expiresAt]))
  await sendOk(devnet, 'relayer', await lenderTermsConfirmation(expiresAt)) // anyone may submit it
  expect(await lienState()).toEqual([borrower.address, expiresAt, true, false])

  for (const role of ['lender', 'spare'] as const) {
    await sendOk(devnet, 'deployer', callOf(payToken, mockEIP3009TokenAbi, 'mint', [devnetAccounts[role].address, 10n * usdc]))
    await sendOk(devnet, role, callOf(payToken, mockEIP3009TokenAbi, 'approve', [pool, 10n * usdc]))
    await sendOk(devnet, role, callOf(pool, lienPoolAbi, 'deposit', [10n * usdc]))
  }
  const lenderOf = () => devnet.publicClient.readContract({ address: pool, abi: lienPoolAbi, functionName: 'lenders', args: [lienId] })
  await expectRevert(devnet, {
    from: 'spare',
    call: callOf(pool, lienPoolAbi, 'fund', [lienId, 1n]),
    expected: `NotSecuredParty(lienId=${lienId})`,
    watch: { token: payToken, holders: [squatter, borrower.address, pool], extra: [lenderOf] },
  })
  await sendOk(devnet, 'lender', callOf(pool, lienPoolAbi, 'fund', [lienId, 10n * usdc]))
  expect(await lenderOf()).toBe(lender)
})
