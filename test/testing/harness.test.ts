// order-relay/testing from bun test: a devnet process (`order-relay devnet --port-base 0`)
// with a contract developer's own adapter (examples/contract-e2e's TicketAdapter,
// compiled here), the relayer's variables from `env`, orders through the real pipeline,
// and every revert the adapter and its payment can produce read back by name.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { encodeAbiParameters, type Hex, parseAbi } from 'viem'
import { createRelayClient, SubmitError } from '../../src/client/index.ts'
import { createRelayer, readRelayerConfig, type RelayerServer } from '../../src/relayer/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { createOrder, readManifest, sendOrder, signTestOrder, startDevnet, type TestDevnet } from '../../src/testing/index.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { compileTicketAdapter } from './support/ticketAdapter.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-harness-'))
const price = 10_000_000n
const seat = (n: bigint): Hex => encodeAbiParameters([{ type: 'uint256' }], [n])
const ticketAbi = parseAbi(['function holders(uint256 seat) view returns (bytes32)', 'function sold() view returns (uint256)'])

let devnet: TestDevnet
let nonceBefore = 0
/** Orders this file settled through the devnet's relayer. */
let settledHere = 0

beforeAll(async () => {
  const artifact = compileTicketAdapter(dir)
  devnet = await startDevnet({
    adapters: [{ artifact, args: ['broker', 'payToken', 'payee', price, 2n] }],
    env: { RELAYER_FEE_FLOOR_BPS: '10', RELAYER_REVERT_COOLDOWN_MS: '0' },
  })
  nonceBefore = await devnet.publicClient.getTransactionCount({ address: devnet.accounts.relayer.address })
}, 180_000)

afterAll(async () => {
  await devnet?.stop()
  rmSync(dir, { recursive: true, force: true })
}, 60_000)

async function refusal(promise: Promise<unknown>): Promise<SubmitError> {
  const error = await promise.catch((e: unknown) => e)
  expect(error).toBeInstanceOf(SubmitError)
  return error as SubmitError
}

describe('startDevnet', () => {
  test('the manifest names your adapter with its errors, events and payment view; the relayer on a free port took RELAYER_FEE_FLOOR_BPS', async () => {
    expect(readManifest(devnet.manifestPath)).toEqual(devnet.manifest)
    const [adapter] = devnet.manifest.adapters ?? []
    expect([adapter?.name, adapter?.address]).toEqual(['TicketAdapter', devnet.adapters.TicketAdapter])
    expect(adapter?.abi.map((item) => `${item.type} ${'name' in item ? item.name : ''}`).sort()).toEqual([
      'error NotBroker',
      'error SeatTaken',
      'error SoldOut',
      'error WrongPayment',
      'event TicketIssued',
      'function defaultPayment',
    ])
    expect(await devnet.relayer.info()).toMatchObject({ feeFloorBps: 10, supportedChainIds: [421614], relayer: devnet.accounts.relayer.address })
    expect(new URL(devnet.relayerUrl).port).not.toBe('8787')
    expect(devnet.output()).toContain(`adapter  TicketAdapter ${devnet.adapters.TicketAdapter}`)
  })
})

describe('your adapter through POST /broker', () => {
  test('a seat settles: the receipt is the adapter\'s own event, decoded by name', async () => {
    const success = await sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(0n), amount: price })
    settledHere++
    expect(success.receipt).toEqual({ adapter: 'TicketAdapter', event: 'TicketIssued', fields: { orderHash: success.orderHash, holder: devnet.accounts.consumer.address, seat: '0' } })
    expect(success.feeCollected).toBe('50000')
    expect(await devnet.publicClient.readContract({ address: devnet.adapters.TicketAdapter!, abi: ticketAbi, functionName: 'holders', args: [0n] })).toBe(success.orderHash as Hex)
  })

  test('its custom errors with their arguments by name, and its revert string, before any gas is spent', async () => {
    const { payToken } = devnet.manifest.contracts
    const holder = await devnet.publicClient.readContract({ address: devnet.adapters.TicketAdapter!, abi: ticketAbi, functionName: 'holders', args: [0n] })
    const cheap = await refusal(sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(1n), amount: price - 1n }))
    expect([cheap.code, cheap.status, cheap.message]).toEqual([
      'WOULD_REVERT',
      422,
      // WrongPayment: the relayer reads the adapter's defaultPayment() (IAdapterPayment) for what to pay instead.
      `would revert: WrongPayment(token=${payToken}, payee=${devnet.accounts.payee.address}, amount=9999999); the adapter asks for amount=10000000 of payToken=${payToken} paid to payee=${devnet.accounts.payee.address}`,
    ])
    expect((await refusal(sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(0n), amount: price }))).message).toBe(`would revert: SeatTaken(seat=0, heldBy=${holder})`)
    expect((await refusal(sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(9n), amount: price }))).message).toBe('would revert: TicketAdapter: no such seat')
    await sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(1n), amount: price })
    settledHere++
    expect((await refusal(sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(0n), amount: price }))).message).toBe('would revert: SoldOut(sold=2, seats=2)')
  })

  test('the Broker\'s and the token\'s refusals for it: fee over 100 %, wrong signer, expired window, replay naming the settling tx', async () => {
    const greedy = await refusal(sendOrder(devnet, { adapter: 'TicketAdapter', params: seat(0n), amount: price, feeBps: 10_001 }))
    expect(greedy.message).toBe('would revert: FeeTooHigh()')
    const order = createOrder(devnet, { adapter: 'allocationAdapter', params: seat(1n), amount: price })
    expect((await refusal(devnet.relayer.broker(await signTestOrder(devnet, order, { signer: 'payee' })))).message).toBe('would revert: invalid signature')
    const past = BigInt(Math.floor(Date.now() / 1000) - 60)
    expect((await refusal(devnet.relayer.broker(await signTestOrder(devnet, order, { validBefore: past })))).code).toBe('AUTH_EXPIRED')
    const request = await signTestOrder(devnet, order)
    const settled = await devnet.relayer.broker(request)
    settledHere++
    const replay = await refusal(devnet.relayer.broker(request))
    expect(replay.message).toBe(`would revert: authorization used (already settled in tx ${settled.txHash}); build a new order with a fresh nonce`)
    const below = await refusal(sendOrder(devnet, { adapter: 'allocationAdapter', params: seat(1n), amount: price, feeBps: 5 }))
    expect(below.code).toBe('FEE_BELOW_FLOOR')
  })
})

describe('a relayer started from the manifest (RELAYER_MANIFEST)', () => {
  let server: RelayerServer | undefined
  afterAll(async () => {
    await server?.stop()
  })

  test('learns the adapter from it and decodes its errors by name too', async () => {
    const config = readRelayerConfig({
      RELAYER_PK: devnet.accounts.secondRelayer.privateKey,
      RELAYER_MANIFEST: devnet.manifestPath,
      RELAYER_PORT: '0',
      RELAYER_DB: join(dir, 'second.sqlite'),
    })
    expect(config.adapters?.map((adapter) => adapter.name)).toEqual(['TicketAdapter'])
    server = await createRelayer(config, { logger: createMemoryLogger(), version: 'test' }).serve()
    const request = await signTestOrder(devnet, createOrder(devnet, { adapter: 'TicketAdapter', params: seat(0n), amount: price }))
    const error = await refusal(createRelayClient({ url: server.url }).broker(request))
    expect([error.code, error.message]).toEqual(['WOULD_REVERT', 'would revert: SoldOut(sold=2, seats=2)'])
    // The same revert as fields, under the manifest's name for the adapter.
    expect(error.revert).toEqual({ contract: 'TicketAdapter', name: 'SoldOut', args: { sold: '2', seats: '2' }, selector: expect.stringMatching(/^0x[0-9a-f]{8}$/), data: expect.stringMatching(/^0x[0-9a-f]{136}$/) })
  })
})

test('money safety: one relayer tx per settled order, none reverted', async () => {
  const sent = (await devnet.publicClient.getTransactionCount({ address: devnet.accounts.relayer.address })) - nonceBefore
  expect(sent).toBe(settledHere)
  expect(await devnet.publicClient.readContract({ address: devnet.adapters.TicketAdapter!, abi: ticketAbi, functionName: 'sold' })).toBe(2n)
})

test('stop(): the devnet process ends, its ports close and its folder is gone; a second stop() is the same', async () => {
  const { relayerUrl, rpcUrl, manifestPath } = devnet
  await devnet.stop()
  await devnet.stop()
  expect(await fetch(`${relayerUrl}/health`).then(() => 'answered', () => 'closed')).toBe('closed')
  expect(await fetch(rpcUrl, { method: 'POST', body: '{}' }).then(() => 'answered', () => 'closed')).toBe('closed')
  expect(existsSync(dirname(manifestPath))).toBe(false)
}, 60_000)

test('a devnet that cannot start says why, with its own output (a missing artifact is a usage error, found before anvil starts)', async () => {
  const error = await startDevnet({ adapters: [{ artifact: join(dir, 'Missing.json') }], timeout: 60_000 }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(Error)
  expect((error as Error).message).toStartWith('order-relay devnet exited with code 2:\n')
  expect((error as Error).message).toContain(`order-relay devnet: cannot read the artifact ${join(dir, 'Missing.json')}: no such file (build the contract first, e.g. forge build)`)
  expect((error as Error).message).not.toContain('starting anvil')
}, 60_000)

test('a test process that exits without stop(): its devnet stops on its own, anvil included', async () => {
  const script = join(dir, 'forgets.ts')
  writeFileSync(
    script,
    [
      `import { startDevnet } from ${JSON.stringify(join(import.meta.dir, '../../src/testing/index.ts'))}`,
      'const devnet = await startDevnet()',
      'console.log(JSON.stringify({ rpcUrl: devnet.rpcUrl, relayerUrl: devnet.relayerUrl }))',
      'process.exit(0)',
    ].join('\n'),
  )
  const child = Bun.spawn([process.execPath, script], { stdout: 'pipe', stderr: 'pipe' })
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited])
  expect(code).toBe(0)
  const { rpcUrl, relayerUrl } = JSON.parse(out.trim().split('\n').at(-1)!) as { rpcUrl: string; relayerUrl: string }
  const closed = (url: string) => fetch(url, { method: 'POST', body: '{}' }).then(() => false, () => true)
  await waitFor('the forgotten devnet\'s relayer and anvil to stop', async () => (await closed(`${relayerUrl}/info`)) && (await closed(rpcUrl)), 30_000)
}, 120_000)
