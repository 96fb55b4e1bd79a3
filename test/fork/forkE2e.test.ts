// The end-to-end suite against an anvil fork. `npm run test:fork` sets FORK_URL to a
// real chain (CI: Arbitrum Sepolia 421614, Robinhood Chain Testnet 46630); inside
// `npm test` a local anvil plays the remote chain, so the same path is exercised.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createRelayClient, SubmitError } from '../../src/client/index.ts'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { allocationOrder, signed, vaultParams } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'

const chainIds = (process.env.FORK_CHAIN_IDS ?? '421614,46630').split(',').map(Number)

for (const chainId of chainIds) {
  let remote: Devnet | undefined
  let fork: Devnet
  let relayer: TestRelayer

  beforeAll(async () => {
    let forkUrl = process.env.FORK_URL
    if (!forkUrl) {
      remote = await startDevnet({ chainId, deploy: false })
      forkUrl = remote.rpcUrl
    }
    fork = await startDevnet({ forkUrl })
    relayer = await startTestRelayer(fork)
  }, 60_000)

  afterAll(async () => {
    await relayer?.stop()
    await fork?.stop()
    await remote?.stop()
  })

  test(`fork of ${process.env.FORK_URL ? 'FORK_URL' : `a local chain ${chainId}`}: deployed onto the fork, an order settles`, async () => {
    if (!process.env.FORK_URL) expect(fork.chainId).toBe(chainId)
    const client = createRelayClient({ url: relayer.url })
    const info = await client.info()
    expect(info.supportedChainIds).toEqual([fork.chainId])
    const success = await client.broker(await signed(fork, allocationOrder(fork)))
    expect(success.ok).toBe(true)
    expect(success.receipt.event).toBe('AllocationGranted')
    expect(success.feeCollected).toBe('50000')
  }, 60_000)

  test(`fork ${chainId}: an order for an unconfigured vault is refused before gas is spent`, async () => {
    const client = createRelayClient({ url: relayer.url })
    const request = await signed(fork, allocationOrder(fork, { params: vaultParams(7n) }))
    const error = await client.broker(request).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SubmitError)
    expect((error as SubmitError).code).toBe('WOULD_REVERT')
    expect((error as SubmitError).message).toBe('would revert: AllocationSoldOut(vaultId=7)')
  }, 60_000)

  if (process.env.FORK_URL) break // one real chain per run
}
