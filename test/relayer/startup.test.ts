// Start-up checks of the RPC: another chain refuses to start, a silent node warns.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { createRelayer, readRelayerConfig } from '../../src/relayer/index.ts'
import { createMemoryLogger, freePort } from '../../src/shared/index.ts'
import { signedTx } from '../../scripts/lib/index.ts'

let devnet: Devnet
const scratch = mkdtempSync(join(tmpdir(), 'order-relay-startup-'))
let journals = 0
beforeAll(async () => {
  devnet = await startDevnet()
})
afterAll(async () => {
  await devnet?.stop()
  rmSync(scratch, { recursive: true, force: true })
})

const configFor = (chainId: number, rpcUrl: string) =>
  readRelayerConfig(
    {
      RELAYER_PK: devnetAccounts.relayer.privateKey,
      RELAYER_CHAIN_ID: String(chainId),
      RELAYER_RPC_URL: rpcUrl,
      RELAYER_BROKER: devnet.manifest.contracts.broker,
      RELAYER_DB: join(scratch, `journal-${++journals}.sqlite`),
    },
    { host: '127.0.0.1', port: 0 },
  )

test('an RPC of another chain: serve refuses, naming both chains', async () => {
  const relayer = createRelayer(configFor(46630, devnet.rpcUrl), { logger: createMemoryLogger(), version: 'test' })
  await expect(relayer.serve()).rejects.toThrow('RELAYER_RPC_URL serves chain 421614, not RELAYER_CHAIN_ID 46630')
})

test('an RPC that does not answer: serve starts and warns once', async () => {
  const logger = createMemoryLogger()
  const deadRpc = `http://127.0.0.1:${await freePort()}`
  const server = await createRelayer(configFor(421614, deadRpc), { logger, version: 'test' }).serve()
  try {
    expect(logger.lines.filter((line) => line.startsWith('warn: the RPC does not answer yet'))).toHaveLength(1)
    const info = await (await fetch(`${server.url}/info`)).json()
    expect(info.relayer).toBe(devnetAccounts.relayer.address)
  } finally {
    await server.stop()
  }
})

test('a journal that saw nonces this chain never mined (a reset devnet, another chain): serve refuses, naming the journal', async () => {
  const { openJournal } = await import('../../src/relayer/journal/index.ts')
  const config = configFor(421614, devnet.rpcUrl)
  const journal = openJournal(config.journalPath!, { chainId: 421614, address: devnetAccounts.relayer.address })
  const hash = `0x${'ab'.repeat(32)}` as const
  await journal.record([{ nonce: 10_000, orderHash: null, consumer: null, adapter: null, payToken: null, tx: { hash, nonce: 10_000, raw: signedTx({ chainId: 421614, nonce: 10_000, to: devnetAccounts.spare.address, gas: 21_000n }), kind: 'order', signedAt: 1 } }])
  journal.resolve(10_000, { status: 'settled', txHash: hash, blockNumber: 5n })
  journal.close()
  const latest = await devnet.publicClient.getTransactionCount({ address: devnetAccounts.relayer.address })
  const relayer = createRelayer(config, { logger: createMemoryLogger(), version: 'test' })
  await expect(relayer.serve()).rejects.toThrow(
    `RELAYER_DB ${config.journalPath} saw nonce 10000 of ${devnetAccounts.relayer.address} mined, but the chain's nonce for it is ${latest}: the chain was reset or this journal belongs to another chain; move the journal away (or set RELAYER_DB to a new file) and start again`,
  )
})
