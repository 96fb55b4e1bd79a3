import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Address, createPublicClient, createTestClient, createWalletClient, getAddress, http, keccak256, type PublicClient, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { chainFor, deployContracts } from '../../src/chain/index.ts'
import { anvilInstance, devnetAccounts, findAnvil } from '../../src/devnet/index.ts'
import { McpError, readIsEncumbered, type Receipt, verifyReceipt } from '../../src/mcp/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { runCli, removeTempDirs, tempDir, writeJson } from './helpers.ts'

// A node that keeps the state of its last two blocks only (anvil --prune-history 2),
// as a full, non-archive node does for older blocks.
const chainId = 421614
let anvil: ReturnType<typeof anvilInstance>
let rpcUrl: string
let client: PublicClient
let registry: Address
let oldReceipt: Receipt
const lienId = keccak256(stringToHex('archive test: unknown lien'))

beforeAll(async () => {
  const port = await freePort()
  anvil = anvilInstance({ binary: findAnvil(), chainId, port, host: '127.0.0.1', pruneHistory: 2 })
  await anvil.start()
  rpcUrl = `http://127.0.0.1:${port}`
  const chain = chainFor(chainId, rpcUrl)
  client = createPublicClient({ chain, transport: http(rpcUrl, { retryCount: 0 }), pollingInterval: 50 }) as PublicClient
  const walletClient = createWalletClient({ chain, transport: http(rpcUrl), account: privateKeyToAccount(devnetAccounts.deployer.privateKey) })
  const { contracts } = await deployContracts({
    publicClient: client,
    walletClient,
    owner: devnetAccounts.deployer.address,
    attestor: devnetAccounts.attestor.address,
    laneOperator: devnetAccounts.laneOperator.address,
  })
  registry = getAddress(contracts.registry)
  oldReceipt = (await readIsEncumbered(client, { chainId, rpcUrl, registry, lienId })).receipt
  await createTestClient({ chain, transport: http(rpcUrl), mode: 'anvil' }).mine({ blocks: 10 })
}, 60_000)

afterAll(async () => {
  removeTempDirs()
  await anvil?.stop().catch(() => {})
})

test('a node without the state of the receipt\'s block says "needs an archive node", not a mismatch', async () => {
  const outcome = await verifyReceipt(oldReceipt, rpcUrl)
  expect(outcome.match).toBe(false)
  expect(outcome.verdict).toBe('needs-archive-node')
  expect(outcome.checks.chainId.status).toBe('match')
  expect(outcome.checks.blockHash.status).toBe('match')
  expect(outcome.checks.result).toEqual({ status: 'not-checked', expected: `0x${'0'.repeat(64)}`, actual: null })
  expect(outcome.message).toBe(
    `cannot replay at ${new URL(rpcUrl).origin}: chain id and block hash match, but the node has no state for block ${oldReceipt.blockNumber}; this needs an archive node`,
  )
})

test('is_encumbered at a block whose state the node dropped is a NEEDS_ARCHIVE_NODE error', async () => {
  const error = await readIsEncumbered(client, { chainId, rpcUrl, registry, lienId, blockNumber: BigInt(oldReceipt.blockNumber) }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(McpError)
  expect((error as McpError).code).toBe('NEEDS_ARCHIVE_NODE')
  expect((error as McpError).message).toStartWith(`the RPC at ${new URL(rpcUrl).origin} has no state for that block (`)
  expect((error as McpError).message).toEndWith('): this needs an archive node')
  // The latest block still has its state.
  expect((await readIsEncumbered(client, { chainId, rpcUrl, registry, lienId })).encumbered).toBe(false)
})

test('verify-receipt exits 1 and says an archive node is needed', async () => {
  const path = writeJson(tempDir(), 'receipt.json', oldReceipt)
  const run = await runCli(['verify-receipt', path, '--rpc', rpcUrl])
  expect(run.code).toBe(1)
  expect(run.stdout).toContain('  result     not-checked')
  expect(run.stdout).toEndWith('this needs an archive node\n')
}, 20_000)
