// The end-to-end suite against an anvil fork, paid in the chain's own Circle USDC.
// `npm run test:fork` sets FORK_URL to a real chain (CI: Arbitrum Sepolia 421614,
// Robinhood Chain Testnet 46630; .github/workflows/fork.yml) and FORK_BLOCK pins the
// block; inside `npm test` a local anvil plays the remote chain, with a FiatToken
// stand-in at Circle's address, so the same path is exercised. The Broker and adapters
// are deployed onto the fork; the consumer gets USDC from the token's master minter
// (impersonated). A chain with no Circle USDC to cite (circleUsdc.ts) pays in the
// project's mock token, and says so.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Address, createPublicClient, createWalletClient, erc20Abi, http, parseAbi } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { chainFor } from '../../src/chain/index.ts'
import { createRelayClient, SubmitError } from '../../src/client/index.ts'
import { type Devnet, devnetAccounts, startDevnet, usdc } from '../../src/devnet/index.ts'
import { findRevertFix } from '../../src/wire/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { circleUsdc } from './circleUsdc.ts'
import { plantFiatToken } from './support/standInFiatToken.ts'

const forkUrl = process.env.FORK_URL
const forkBlock = process.env.FORK_BLOCK ? BigInt(process.env.FORK_BLOCK) : undefined
const fiatTokenAbi = parseAbi(['function pauser() view returns (address)', 'function pause()', 'function unpause()', 'function version() view returns (string)'])
const eip712DomainAbi = parseAbi(['function eip712Domain() view returns (bytes1, string, string, uint256, address, bytes32, uint256[])'])

/** The chains to run: FORK_URL's (read from it), else each of FORK_CHAIN_IDS played by a local anvil. */
const chainIds = forkUrl
  ? [await createPublicClient({ transport: http(forkUrl, { retryCount: 1 }) }).getChainId()]
  : (process.env.FORK_CHAIN_IDS ?? '421614,46630').split(',').map(Number)

for (const chainId of chainIds) {
  const payToken: Address | undefined = circleUsdc[chainId]
  const where = forkUrl ? `fork of FORK_URL (chain ${chainId}${forkBlock === undefined ? '' : ` at block ${forkBlock}`})` : `fork of a local chain ${chainId}`
  if (!payToken) console.log(`test/fork: chain ${chainId} has no Circle USDC to cite (see docs/fork-tests.md): its fork pays in the project's mock token`)

  describe(where, () => {
    let remote: Devnet | undefined
    let fork: Devnet
    let relayer: TestRelayer
    let nonceBefore = 0
    let settled = 0
    /** The block the fork was pinned at (FORK_BLOCK, or the stand-in's head), if any. */
    let pinned: bigint | undefined

    beforeAll(async () => {
      let url = forkUrl
      let block = forkBlock
      if (!url) {
        remote = await startDevnet({ chainId, deploy: false })
        if (payToken) await plantFiatToken(remote, payToken)
        url = remote.rpcUrl
        // Pinned as FORK_BLOCK pins a real chain: the block the stand-in is at now.
        block = await remote.publicClient.getBlockNumber()
      }
      pinned = block
      fork = await startDevnet({ forkUrl: url, ...(block === undefined ? {} : { forkBlockNumber: block }), ...(payToken ? { payToken } : {}) })
      relayer = await startTestRelayer(fork)
      nonceBefore = await fork.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address })
    }, 120_000)

    afterAll(async () => {
      await relayer?.stop()
      await fork?.stop()
      await remote?.stop()
    })

    test('deployed onto the fork, an order settles: the consumer pays, the payee and the relayer are paid', async () => {
      if (!forkUrl) expect(fork.chainId).toBe(chainId)
      // anvil's fork starts at the pinned block: the deployment is the first block after it.
      if (pinned !== undefined) expect(BigInt(fork.manifest.deployedAt)).toBe(pinned + 1n)
      const token = fork.manifest.contracts.payToken
      if (payToken) expect(token).toBe(payToken)
      const balances = () =>
        Promise.all([devnetAccounts.consumer, devnetAccounts.payee, devnetAccounts.relayer].map(({ address }) => fork.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address] })))
      const before = await balances()
      const client = createRelayClient({ url: relayer.url })
      expect((await client.info()).supportedChainIds).toEqual([fork.chainId])
      const success = await client.broker(await signed(fork, allocationOrder(fork)))
      settled++
      expect([success.receipt.event, success.feeCollected]).toEqual(['AllocationGranted', '50000'])
      const after = await balances()
      expect(after.map((value, i) => value - before[i]!)).toEqual([-10n * usdc, 10n * usdc - 50_000n, 50_000n])
    }, 60_000)

    test('an order for an unconfigured vault is refused before gas is spent', async () => {
      const error = await createRelayClient({ url: relayer.url }).broker(await signed(fork, allocationOrder(fork, { params: vaultParams(7n) }))).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(SubmitError)
      expect([(error as SubmitError).code, (error as SubmitError).message]).toEqual(['WOULD_REVERT', 'would revert: AllocationSoldOut(vaultId=7)'])
    }, 60_000)

    if (payToken) {
      test("the chain's USDC: a FiatToken whose domain is read from name() and version(), not EIP-5267", async () => {
        const version = await fork.publicClient.readContract({ address: payToken, abi: fiatTokenAbi, functionName: 'version' })
        expect(version).toBe('2')
        const domain = await fork.publicClient.readContract({ address: payToken, abi: eip712DomainAbi, functionName: 'eip712Domain' }).catch(() => 'none')
        expect(domain).toBe('none')
      })

      test('replay, expiry and a wrong signer answer as on the devnet, with Circle\'s revert strings', async () => {
        const client = createRelayClient({ url: relayer.url })
        const request = await signed(fork, allocationOrder(fork))
        const first = await client.broker(request)
        settled++
        const replay = (await client.broker(request).catch((e: unknown) => e)) as SubmitError
        expect([replay.code, replay.message]).toEqual(['WOULD_REVERT', `would revert: authorization used (already settled in tx ${first.txHash}); build a new order with a fresh nonce`])
        const past = BigInt(Math.floor(Date.now() / 1000) - 60)
        const expired = (await client.broker(await signed(fork, allocationOrder(fork), { validBefore: past })).catch((e: unknown) => e)) as SubmitError
        expect(expired.code).toBe('AUTH_EXPIRED')
        const stranger = privateKeyToAccount(devnetAccounts.spare.privateKey)
        const asConsumer = { ...stranger, address: devnetAccounts.consumer.address }
        const wrong = (await client.broker(await signed(fork, allocationOrder(fork), { account: asConsumer })).catch((e: unknown) => e)) as SubmitError
        expect([wrong.code, wrong.message]).toEqual(['WOULD_REVERT', 'would revert: FiatTokenV2: invalid signature'])
        expect(findRevertFix(wrong.message)?.revert).toBe('invalid signature')
      }, 60_000)

      test('paused by its pauser (impersonated): refused before gas is spent, with the fix that names the issuer', async () => {
        const pauser = await fork.publicClient.readContract({ address: payToken, abi: fiatTokenAbi, functionName: 'pauser' })
        const asPauser = async (functionName: 'pause' | 'unpause') => {
          await fork.testClient.impersonateAccount({ address: pauser })
          try {
            await fork.testClient.setBalance({ address: pauser, value: 10n ** 18n })
            const wallet = createWalletClient({ chain: chainFor(fork.chainId, fork.rpcUrl), transport: http(fork.rpcUrl), account: pauser })
            const hash = await wallet.writeContract({ address: payToken, abi: fiatTokenAbi, functionName })
            expect((await fork.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')
          } finally {
            await fork.testClient.stopImpersonatingAccount({ address: pauser })
          }
        }
        await asPauser('pause')
        try {
          const error = (await createRelayClient({ url: relayer.url }).broker(await signed(fork, allocationOrder(fork))).catch((e: unknown) => e)) as SubmitError
          expect([error.code, error.message]).toEqual(['WOULD_REVERT', 'would revert: Pausable: paused'])
          expect(findRevertFix(error.message)?.revert).toBe('Pausable: paused')
        } finally {
          await asPauser('unpause')
        }
      }, 60_000)
    }

    test('money safety: one relayer tx per settled order, none reverted', async () => {
      const sent = (await fork.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address })) - nonceBefore
      expect(sent).toBe(settled)
    })
  })
}
