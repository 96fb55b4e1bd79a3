// Shared by the contract tests: send calls straight to the deployed contracts (never
// through the relayer), decode reverts exactly, and prove that a revert moved nothing.
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'bun:test'
import {
  type Abi,
  type Address,
  encodeFunctionData,
  getAddress,
  hashTypedData,
  type Hex,
  type LocalAccount,
  type TransactionReceipt,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import {
  attestationTypedData,
  encodeAttestedParams,
  encodeBrokerCall,
  attestedAdapterAbi,
  type ContractAddresses,
  decodeRevert,
  type DecodedRevert,
  errorAbis,
  registryAbis,
  extractRevertData,
  mockEIP3009TokenAbi,
} from '../../src/chain/index.ts'
import { type Devnet, type DevnetRole, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { hashOrder, type RelayRequest } from '../../src/wire/index.ts'

/** Every error a contract test can meet: the broker path's and the registry contracts'. */
const contractErrorAbis = [...errorAbis, ...registryAbis]

/** The devnet's contract addresses, checksummed and typed as viem addresses (the manifest holds validated strings). */
export function contractsOf(devnet: Devnet): { [name in keyof ContractAddresses]: Address } {
  const entries = Object.entries(devnet.manifest.contracts).map(([name, address]) => [name, getAddress(address)])
  return Object.fromEntries(entries) as { [name in keyof ContractAddresses]: Address }
}

/** A raw call: `to` absent means a contract creation (`data` = bytecode + constructor args). */
export type RawCall = { to?: Address; data: Hex }

/** Gas given to every transaction, so viem sends it without an `eth_estimateGas` that would refuse a revert. */
const fixedGas = 3_000_000n

/** What `revertState` watches: token balances of some holders and EIP-3009 authorization states. */
export type Watch = {
  token: Address
  holders: readonly Address[]
  authorizations?: readonly { authorizer: Address; nonce: Hex }[]
  /** Further reads whose results must not change (adapter state, …). */
  extra?: readonly (() => Promise<unknown>)[]
}

/** The ABI-encoded `broker(...)` call for a signed request. */
export function brokerCall(devnet: Devnet, request: RelayRequest): RawCall {
  return {
    to: contractsOf(devnet).broker,
    data: encodeBrokerCall(request),
  }
}

/** Token balances, authorization states and extra reads, as one comparable value. */
export async function readState(devnet: Devnet, watch: Watch) {
  const client = devnet.publicClient
  const balances = await Promise.all(
    watch.holders.map((holder) =>
      client.readContract({ address: watch.token, abi: mockEIP3009TokenAbi, functionName: 'balanceOf', args: [holder] }),
    ),
  )
  const authorizations = await Promise.all(
    (watch.authorizations ?? []).map(({ authorizer, nonce }) =>
      client.readContract({ address: watch.token, abi: mockEIP3009TokenAbi, functionName: 'authorizationState', args: [authorizer, nonce] }),
    ),
  )
  const extra = await Promise.all((watch.extra ?? []).map((read) => read()))
  return { balances, authorizations, extra }
}

/** The usual watch for a `broker()` call: consumer, payee, relayer and broker balances and the order's authorization. */
export function orderWatch(devnet: Devnet, request: RelayRequest, extra: Watch['extra'] = []): Watch {
  const { order } = request
  return {
    token: order.payToken as Address,
    holders: [order.consumer as Address, order.payee as Address, devnetAccounts.relayer.address, contractsOf(devnet).broker],
    authorizations: [{ authorizer: order.consumer as Address, nonce: hashOrder(order) }],
    extra,
  }
}

/** The revert data a mined transaction ended with, read back through anvil's call tracer. */
async function minedRevertData(devnet: Devnet, hash: Hex): Promise<Hex | undefined> {
  const trace = (await devnet.publicClient.request({
    method: 'debug_traceTransaction',
    params: [hash, { tracer: 'callTracer' }],
  } as never)) as { output?: Hex; error?: string }
  return trace.output
}

/** Sends `call` from `role` with a fixed gas limit and waits for the receipt (success or not). */
export async function send(devnet: Devnet, role: DevnetRole, call: RawCall): Promise<TransactionReceipt> {
  const wallet = devnet.wallet(role)
  const hash = await wallet.sendTransaction({ ...call, to: call.to ?? null, gas: fixedGas })
  return devnet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
}

/**
 * Proves a call reverts with exactly `expected` (e.g. `AllocationSoldOut(vaultId=7)`,
 * `invalid signature`): first as an `eth_call`, then as a mined transaction whose
 * revert data is read back from the trace. Token balances, authorization states and
 * the extra reads of `watch` are the same before and after. Returns the decoded error's
 * name, arguments and text.
 */
export async function expectRevert(
  devnet: Devnet,
  options: { from?: DevnetRole; call: RawCall; expected: string; watch: Watch },
): Promise<Pick<DecodedRevert, 'name' | 'args' | 'text'>> {
  const from = options.from ?? 'relayer'
  const before = await readState(devnet, options.watch)

  let simulated: DecodedRevert | undefined
  try {
    await devnet.publicClient.call({ account: devnetAccounts[from].address, to: options.call.to, data: options.call.data })
  } catch (error) {
    simulated = decodeRevert(extractRevertData(error), contractErrorAbis)
  }
  expect(simulated?.text).toBe(options.expected)

  const receipt = await send(devnet, from, options.call)
  expect(receipt.status).toBe('reverted')
  const mined = decodeRevert(await minedRevertData(devnet, receipt.transactionHash), contractErrorAbis)
  expect(mined).toEqual(simulated!)

  expect(await readState(devnet, options.watch)).toEqual(before)
  // The error as the contract tests name it; its raw data was compared above.
  const { name, args, text } = mined
  return { name, args, text }
}

/** Chain time of the latest block (unix seconds). */
export async function chainNow(devnet: Devnet): Promise<bigint> {
  return (await devnet.publicClient.getBlock()).timestamp
}

/** Sends a call from `role` and fails the test unless it succeeds. */
export async function sendOk(devnet: Devnet, role: DevnetRole, call: RawCall): Promise<TransactionReceipt> {
  const receipt = await send(devnet, role, call)
  expect(receipt.status).toBe('success')
  return receipt
}

/** A contract call as a RawCall. */
export function callOf<const abi extends Abi>(to: Address, abi: abi, functionName: string, args: readonly unknown[]): RawCall {
  return { to, data: encodeFunctionData({ abi, functionName, args } as Parameters<typeof encodeFunctionData>[0]) }
}

export const attestorAccount: LocalAccount = privateKeyToAccount(devnetAccounts.attestor.privateKey)

/** The EIP-712 attestation for the devnet's AttestedAdapter. */
export function devnetAttestation(devnet: Devnet, message: { consumer: Address; claim: Hex; notAfter: bigint }) {
  return attestationTypedData({ chainId: devnet.chainId, attestedAdapter: contractsOf(devnet).attestedAdapter, ...message })
}

/**
 * `params` of an attested order: `abi.encode(claim, notAfter, signature)`, the signature
 * over `attestationTypedData` by `signer` (the devnet attestor unless given).
 */
export async function attestationParams(
  devnet: Devnet,
  attestation: { consumer: Address; claim: Hex; notAfter: bigint; signer?: LocalAccount },
): Promise<Hex> {
  const { signer = attestorAccount, ...message } = attestation
  const signature = await signer.signTypedData(devnetAttestation(devnet, message))
  return encodeAttestedParams({ claim: message.claim, notAfter: message.notAfter, signature })
}

/** Whether the AttestedAdapter has redeemed the attestation (its `used(digest)`). */
export function attestationUsed(devnet: Devnet, message: { consumer: Address; claim: Hex; notAfter: bigint }) {
  return () =>
    devnet.publicClient.readContract({
      address: contractsOf(devnet).attestedAdapter,
      abi: attestedAdapterAbi,
      functionName: 'used',
      args: [hashTypedData(devnetAttestation(devnet, message))],
    })
}

/**
 * One devnet for the test file, handed to `use` once it is up (after `setUp`, which
 * may deploy extras); each test runs inside an anvil snapshot that is reverted after
 * it, so state changes (vaults, rounds, settled orders) never leak between tests.
 */
export function useSnapshottedDevnet(use: (devnet: Devnet) => void, setUp?: (devnet: Devnet) => Promise<void>) {
  let devnet: Devnet | undefined
  let id: Hex | undefined
  beforeAll(async () => {
    devnet = await startDevnet()
    await setUp?.(devnet)
    use(devnet)
  })
  afterAll(async () => {
    await devnet?.stop()
  })
  beforeEach(async () => {
    id = await devnet!.testClient.snapshot()
  })
  afterEach(async () => {
    if (id) await devnet!.testClient.revert({ id })
    id = undefined
  })
}
