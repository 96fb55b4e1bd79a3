import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main } from '../../src/cli/index.ts'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'

let devnet: Devnet
const dir = mkdtempSync(join(tmpdir(), 'indexer-cli-'))

beforeAll(async () => {
  devnet = await startDevnet()
})
afterAll(async () => {
  await devnet?.stop()
  rmSync(dir, { recursive: true, force: true })
})

function io(env: Record<string, string> = {}) {
  const controller = new AbortController()
  const out: string[] = []
  const err: string[] = []
  return { controller, out, err, io: { env, out: (line: string) => out.push(line), err: (line: string) => err.push(line), signal: controller.signal } }
}

test('indexer --manifest serves /health and /activity, prints its URL, and stops cleanly on a signal', async () => {
  const manifest = join(dir, 'manifest.json')
  writeFileSync(manifest, JSON.stringify(devnet.manifest))
  const run = io({ INDEXER_POLL_MS: '20', INDEXER_DB: join(dir, 'index.sqlite') })
  const exit = main(['indexer', '--manifest', manifest, '--port', '0'], run.io)

  const deadline = Date.now() + 5_000
  let url: string | undefined
  while (!url && Date.now() < deadline) {
    url = run.out.map((line) => /^indexer listening on (http:\S+)/.exec(line)?.[1]).find(Boolean)
    await Bun.sleep(10)
  }
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  expect(await (await fetch(`${url}/health`)).text()).toBe('ok')
  const head = (await devnet.publicClient.getBlockNumber({ cacheTime: 0 })).toString()
  let snapshot: { indexedThrough?: string; events?: { name: string }[] } = {}
  while (snapshot.indexedThrough !== head && Date.now() < deadline) {
    snapshot = (await (await fetch(`${url}/activity`)).json()) as typeof snapshot
    await Bun.sleep(20)
  }
  expect(snapshot.events?.map((event) => event.name)).toEqual(['Bound', 'EscrowSet', 'LienProposed', 'LienConfirmed', 'LienRecorded'])

  run.controller.abort()
  expect(await exit).toBe(0)
  expect(run.out.at(-1)).toBe('stopping the indexer')
  expect(await fetch(`${url}/health`).then(() => 'answered', () => 'closed')).toBe('closed')
})

test('indexer --help lists the options and every variable with its default', async () => {
  const run = io()
  expect(await main(['indexer', '--help'], run.io)).toBe(0)
  const help = run.out.join('\n')
  for (const text of ['--manifest PATH', '--port N', 'INDEXER_RPC_URL', 'INDEXER_CHAIN_ID', 'INDEXER_MANIFEST', 'INDEXER_ADDRESSES', 'INDEXER_DEPLOYED_AT', 'INDEXER_PORT', 'default 8788', 'INDEXER_RETENTION', 'default 10000', 'INDEXER_STALE_BLOCKS', 'default 64', 'INDEXER_HEAD_STALE_MS', 'default 30000', 'INDEXER_POLL_MS', 'default 1000', 'INDEXER_HOST', 'INDEXER_MAX_RANGE']) {
    expect(help).toContain(text)
  }
})

test('bad flags and configuration are usage errors (exit 2) that name the problem', async () => {
  const badPort = io()
  expect(await main(['indexer', '--port', 'eighty'], badPort.io)).toBe(2)
  expect(badPort.err[0]).toBe('order-relay indexer: --port must be a port number (0 to 65535)')

  const noConfig = io()
  expect(await main(['indexer'], noConfig.io)).toBe(2)
  expect(noConfig.err[0]).toContain('INDEXER_CHAIN_ID is required')

  const unknown = io()
  expect(await main(['indexer', '--bogus'], unknown.io)).toBe(2)
})
