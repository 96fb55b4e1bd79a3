// The relayer on a gas key it never holds (a remote signer, KMS: here a double of such a
// service, signing with the devnet relayer's key after a delay, switchable to fail or
// hang). Orders settle with a batch's signatures asked for together, within
// RELAYER_SIGNER_CONCURRENCY; a signer that fails or times out stops new orders (503
// INSUFFICIENT_RELAYER_GAS, /ready failing with the reason) and comes back once it signs;
// a tx already journaled is neither lost nor sent twice; /info and /status say which
// signer, and nothing of its credentials shows anywhere. RELAYER_PK off a devnet warns.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hex } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { createRelayer, readRelayerConfig } from '../../src/relayer/index.ts'
import { createMemoryLogger, freePort } from '../../src/shared/index.ts'
import type { RelayRequest } from '../../src/wire/index.ts'
import { type Answer, expectMoneySafe, noncesSettle } from '../chaos/support/ledger.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { signerDouble } from '../../scripts/lib/index.ts'
import { waitFor } from '../helpers/waitFor.ts'

const key = devnetAccounts.relayer.address
// The service's credentials: in its URL (a user token and a path key), never in anything the relayer shows.
const token = 'sekrit-token-4711'
const pathKey = 'kms0123456789abcdefXYZ0123'
const signerUrl = `https://relayer:${token}@signer.example/${pathKey}`
const secrets = [token, pathKey, devnetAccounts.relayer.privateKey, devnetAccounts.relayer.privateKey.slice(2)]

let devnet: Devnet
beforeAll(async () => {
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
})

/** Every answer and log line of a run, to grep for the secrets. */
const seen: string[] = []
async function get(relayer: TestRelayer, path: string) {
  const response = await fetch(`${relayer.url}${path}`)
  const text = await response.text()
  seen.push(text)
  return { status: response.status, text, json: () => JSON.parse(text) as Record<string, unknown> }
}
async function post(relayer: TestRelayer, request: RelayRequest, answers: Answer[]) {
  const answer = await relayer.post(request)
  seen.push(answer.text)
  answers.push({ orderHash: request.orderHash as Hex, status: answer.status, body: answer.body })
  return answer
}
const head = async () => (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n

test('orders settle through a signer service with 20 ms a signature: a batch asked for together, never more than RELAYER_SIGNER_CONCURRENCY at once; /info and /status say which signer', async () => {
  const double = signerDouble(devnetAccounts.relayer.privateKey, { delayMs: 20, url: signerUrl })
  const relayer = await startTestRelayer(devnet, { gasSigner: double.signer, env: { RELAYER_SIGNER_CONCURRENCY: '4' } })
  try {
    const fromBlock = await head()
    const requests: RelayRequest[] = []
    for (let i = 0; i < 12; i++) requests.push(await signed(devnet, allocationOrder(devnet)))
    const answers: Answer[] = []
    const results = await Promise.all(requests.map((request) => post(relayer, request, answers)))
    expect(results.map((result) => result.status)).toEqual(requests.map(() => 200))
    // Batches of several orders were signed together, and never more than four at once.
    expect(double.stats.mostInFlight).toBe(4)
    expect(double.stats.signed).toBe(12)
    await expectMoneySafe(devnet, { key, fromBlock, settle: requests.map((request) => request.orderHash as Hex), answers })

    const info = (await get(relayer, '/info')).json()
    expect(info.signerKind).toBe('remote')
    const status = (await get(relayer, '/status')).json()
    expect(status.signer).toEqual({ kind: 'remote', description: 'https://signer.example/***', up: true })
    const ready = await get(relayer, '/ready')
    expect(ready.status).toBe(200)
    expect(ready.json().checks).toContainEqual({ name: 'signer', ok: true })
    const metrics = await relayer.relayer.operations.registry.metrics()
    seen.push(metrics)
    expect(metrics).toContain('order_relay_relayer_signer_up{kind="remote"} 1')
    expect(relayer.logger.lines).toContain('gas key: remote signer https://signer.example/***, 4 signatures at once, each within 10000 ms')
  } finally {
    await relayer.stop()
    seen.push(...relayer.logger.lines)
  }
}, 60_000)

test('a signer that fails while a tx waits in the pool: the replacement is not signed and the slot keeps its tx; new orders get 503 and /ready fails with the reason; once the signer answers, every order settles exactly once', async () => {
  const double = signerDouble(devnetAccounts.relayer.privateKey, { delayMs: 5, url: signerUrl })
  const relayer = await startTestRelayer(devnet, { gasSigner: double.signer })
  const answers: Answer[] = []
  try {
    const fromBlock = await head()
    // One order mined first: the relayer learns how long this key's txs wait for a block.
    const first = await signed(devnet, allocationOrder(devnet))
    expect((await post(relayer, first, answers)).status).toBe(200)

    // anvil stops mining: the next order's tx waits in the pool, and the nonce keeper
    // replaces it once the node has been quiet for a second.
    await devnet.testClient.setAutomine(false)
    const waiting = await signed(devnet, allocationOrder(devnet))
    const waitingAnswer = post(relayer, waiting, answers)
    await waitFor('the waiting order in the journal and the node', async () => relayer.relayer.context.journal.pendingCount() === 1 && (await devnet.publicClient.getTransactionCount({ address: key, blockTag: 'pending' })) > (await devnet.publicClient.getTransactionCount({ address: key })))
    const [slot] = relayer.relayer.context.journal.pending(10)
    double.mode = 'fail'
    await waitFor('the nonce keeper to ask for a replacement and the signer to fail', () => double.stats.refused > 0, 15_000)
    await waitFor('the signer to be down', async () => (await get(relayer, '/ready')).status === 503, 5_000)

    const ready = (await get(relayer, '/ready')).json()
    expect(ready.reason).toMatch(/^the gas key's signer \(remote signer https:\/\/signer\.example\/\*\*\*\) does not sign \(the remote signer https:\/\/signer\.example\/\*\*\* did not answer \(connection refused\)\) since .+Z; new orders wait until it answers again$/)
    expect((await get(relayer, '/status')).json().signer).toEqual({ kind: 'remote', description: 'https://signer.example/***', up: false, reason: ready.reason })
    const refusedOrder = await signed(devnet, allocationOrder(devnet))
    const refused = await post(relayer, refusedOrder, answers)
    expect({ status: refused.status, code: refused.body.code, message: refused.body.message }).toEqual({ status: 503, code: 'INSUFFICIENT_RELAYER_GAS', message: `${ready.reason}; try another relayer` })
    // The slot is as it was: its tx as signed, still pending; nothing else was journaled.
    // (Its sentAt moves whenever a keeper round finds the tx still in the pool: not compared.)
    const withoutSentAt = ({ sentAt: _sentAt, ...rest }: NonNullable<typeof slot>) => rest
    expect(relayer.relayer.context.journal.pending(10).map(withoutSentAt)).toEqual([withoutSentAt(slot!)])
    expect(relayer.logger.lines.filter((line) => line.startsWith('error: '))).toEqual([
      "error: the gas key's signer (remote signer https://signer.example/***) failed: the remote signer https://signer.example/*** did not answer (connection refused); this relayer takes no new orders until it signs again (probed every few seconds); transactions already signed are sent as signed",
    ])
    expect(relayer.logger.lines.some((line) => line.includes('receipt watcher: the RPC failed'))).toBe(false)

    double.mode = 'sign'
    await waitFor('the signer back (a probe or the replacement signed)', async () => (await get(relayer, '/ready')).status === 200, 20_000, 100)
    expect(relayer.logger.lines).toContainEqual(expect.stringMatching(/^the gas key's signer \(remote signer https:\/\/signer\.example\/\*\*\*\) answers again after \d+\.\d s; taking new orders$/))
    await devnet.testClient.setAutomine(true)
    await devnet.testClient.mine({ blocks: 1 })
    expect((await waitingAnswer).status).toBe(200)
    expect((await post(relayer, refusedOrder, answers)).status).toBe(200)
    await expectMoneySafe(devnet, { key, fromBlock, settle: [first, waiting, refusedOrder].map((request) => request.orderHash as Hex), answers })
  } finally {
    await devnet.testClient.setAutomine(true)
    await relayer.stop()
    seen.push(...relayer.logger.lines)
  }
}, 90_000)

test('a signer that does not answer within RELAYER_SIGNER_TIMEOUT_MS: the order gets 503 at the timeout, nothing is broadcast, and orders settle again once it answers', async () => {
  await noncesSettle(devnet, key)
  const double = signerDouble(devnetAccounts.relayer.privateKey, { delayMs: 5, url: signerUrl })
  const relayer = await startTestRelayer(devnet, { gasSigner: double.signer, env: { RELAYER_SIGNER_TIMEOUT_MS: '300' } })
  const answers: Answer[] = []
  try {
    const fromBlock = await head()
    const nonce = await devnet.publicClient.getTransactionCount({ address: key })
    double.mode = 'hang'
    const order = await signed(devnet, allocationOrder(devnet))
    const started = performance.now()
    const refused = await post(relayer, order, answers)
    expect(performance.now() - started).toBeGreaterThanOrEqual(300)
    expect({ status: refused.status, code: refused.body.code, message: refused.body.message }).toEqual({
      status: 503,
      code: 'INSUFFICIENT_RELAYER_GAS',
      message:
        "not broadcast: the gas key's signer (remote signer https://signer.example/***) failed (the remote signer https://signer.example/*** did not sign within 300 ms (RELAYER_SIGNER_TIMEOUT_MS)); nothing was signed or spent; try another relayer",
    })
    const ready = await get(relayer, '/ready')
    expect(ready.status).toBe(503)
    expect(ready.json().reason).toContain('did not sign within 300 ms (RELAYER_SIGNER_TIMEOUT_MS)')
    expect(relayer.relayer.context.journal.pendingCount()).toBe(0)
    expect(await devnet.publicClient.getTransactionCount({ address: key, blockTag: 'pending' })).toBe(nonce)

    double.mode = 'sign'
    await waitFor('the signer back', async () => (await get(relayer, '/ready')).status === 200, 20_000, 100)
    expect((await post(relayer, order, answers)).status).toBe(200)
    await expectMoneySafe(devnet, { key, fromBlock, settle: [order.orderHash as Hex], answers })
  } finally {
    await relayer.stop()
    seen.push(...relayer.logger.lines)
  }
}, 60_000)

test("no answer and no log line of these runs holds the signer's credentials or the key", () => {
  expect(seen.length).toBeGreaterThan(20)
  for (const secret of secrets) expect(seen.filter((text) => text.toLowerCase().includes(secret.toLowerCase()))).toEqual([])
})

test('RELAYER_PK on chain 421614 served by a node that is not a devnet: one warning line at start; on the devnet (anvil, whatever its chain id): none', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'order-relay-signers-'))
  const configFor = (rpcUrl: string, name: string) =>
    readRelayerConfig(
      { RELAYER_PK: devnetAccounts.relayer.privateKey, RELAYER_CHAIN_ID: '421614', RELAYER_RPC_URL: rpcUrl, RELAYER_BROKER: devnet.manifest.contracts.broker, RELAYER_DB: join(scratch, name) },
      { host: '127.0.0.1', port: 0 },
    )
  const warning =
    'warn: the gas key comes from RELAYER_PK on chain 421614: any process or crash dump that reads the environment holds it; with real money use RELAYER_KEYSTORE, a remote signer (RELAYER_SIGNER_URL) or AWS KMS (RELAYER_KMS_KEY_ID) instead (docs/keys.md)'
  try {
    // A node that does not answer cannot say it is a devnet.
    const elsewhere = createMemoryLogger()
    const away = await createRelayer(configFor(`http://127.0.0.1:${await freePort()}`, 'away.sqlite'), { logger: elsewhere, version: 'test' }).serve()
    await away.stop()
    expect(elsewhere.lines.filter((line) => line.startsWith('warn: the gas key'))).toEqual([warning])
    expect(elsewhere.lines).toContain('gas key: local key RELAYER_PK')

    const local = createMemoryLogger()
    const onDevnet = await createRelayer(configFor(devnet.rpcUrl, 'devnet.sqlite'), { logger: local, version: 'test' }).serve()
    await onDevnet.stop()
    expect(local.lines.filter((line) => line.includes('RELAYER_PK'))).toEqual(['gas key: local key RELAYER_PK'])
    expect(local.lines.filter((line) => line.startsWith('warn:'))).toEqual([])
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}, 60_000)
