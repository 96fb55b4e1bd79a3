// `order-relay check` as an operator runs it: the CLI as a subprocess against a real devnet,
// a real relayer holding its journal, a real redis-server and PostgreSQL. Each case asserts
// the exact ✓/✗ lines and the exit code, and that no key or URL credential is printed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import * as v from 'valibot'
import { createPublicClient, formatEther, getAddress, http } from 'viem'
import { hasRedisServer, postgresMissing, redisServerPath, startPostgres, startRedis } from '../../scripts/lib/index.ts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { mockAggregatorV3Abi, mockAggregatorV3Bytecode, mockNodeInterfaceAbi, mockNodeInterfaceBytecode } from '../../src/chain/index.ts'
import { CheckReportSchema } from '../../src/preflight/index.ts'
import { lockHolder, openJournal } from '../../src/relayer/journal/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { watchOutput } from '../helpers/processes.ts'
import { deploy, write } from '../relayer/support/chain.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-check-'))
const key = devnetAccounts.relayer.privateKey
const address = devnetAccounts.relayer.address
const dead = '0x000000000000000000000000000000000000dEaD'
const nodeInterface = '0x00000000000000000000000000000000000000C8'

/** Runs `order-relay check` with `env` only (and PATH); its exit code, stdout and stderr. */
async function check(env: Record<string, string>, args: string[] = []) {
  const child = Bun.spawn([process.execPath, 'src/cli/main.ts', 'check', ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  clearTimeout(timer)
  // Never a key, never a URL's credentials, whatever the case.
  expect(stdout + stderr).not.toContain(key.slice(2))
  expect(stdout + stderr).not.toContain('secret')
  return { code, lines: stdout.trimEnd().split('\n'), stdout, stderr }
}

let devnet: Devnet
let manifest: string
let rpc: string
let broker: string
let payToken: string
let balance: string
beforeAll(async () => {
  devnet = await startDevnet()
  manifest = join(dir, 'manifest.json')
  writeFileSync(manifest, JSON.stringify(devnet.manifest))
  rpc = devnet.rpcUrl
  broker = devnet.manifest.contracts.broker
  payToken = devnet.manifest.contracts.payToken
  balance = formatEther(await createPublicClient({ transport: http(rpc) }).getBalance({ address }))
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** The relayer's variables against the devnet, with a journal of its own under `dir`. */
const relayerEnv = (journal: string, more: Record<string, string> = {}) => ({ RELAYER_PK: key, RELAYER_MANIFEST: manifest, RELAYER_DB: join(dir, journal), ...more })

const passing = {
  gasKey: () => `✓ gas key: RELAYER_PK: address ${address}`,
  rpc: () => `✓ rpc: ${rpc} answers as chain 421614`,
  broker: () => `✓ broker: ${broker} answers as a Broker`,
  balance: () => `✓ gas balance: ${address} holds ${balance} ETH, at or above RELAYER_GAS_FLOOR_WEI (0.001 ETH)`,
  payToken: () => `✓ pay token ${payToken} (USDC): 0.01 ETH per token (fixed rate, from manifest)`,
  nodeInterface: () => `✓ NodeInterface: no NodeInterface at ${nodeInterface} (a local node such as anvil): orders are priced without an L1 data component`,
  journal: (journal: string) => `✓ journal: ${join(dir, journal)} does not exist yet; the relayer creates it at start (${dir} is writable)`,
  lock: () => '✓ journal lock: no running relayer holds it',
}

describe('order-relay check: the relayer', () => {
  test('a devnet relayer configuration: every check passes, exit 0, and nothing is created', async () => {
    const run = await check(relayerEnv('all.sqlite', { RELAYER_RPC_URL: rpc.replace('http://', 'http://user:secret@') }))
    expect(run.lines).toEqual([
      passing.gasKey(),
      passing.rpc(),
      passing.broker(),
      passing.balance(),
      passing.payToken(),
      passing.nodeInterface(),
      passing.journal('all.sqlite'),
      passing.lock(),
      'check: all 8 checks passed',
    ])
    expect(run.code).toBe(0)
    expect(run.stderr).toBe('')
    for (const suffix of ['', '.lock', '.holder', '-wal']) expect(existsSync(join(dir, `all.sqlite${suffix}`))).toBe(false)
  }, 60_000)

  test('a wrong chain id: ✗ rpc names both variables, exit 1', async () => {
    const run = await check({ RELAYER_PK: key, RELAYER_CHAIN_ID: '31337', RELAYER_RPC_URL: rpc, RELAYER_BROKER: broker, RELAYER_DB: join(dir, 'chain.sqlite') })
    expect(run.lines).toEqual([
      passing.gasKey(),
      '✗ rpc: RELAYER_RPC_URL serves chain 421614, not RELAYER_CHAIN_ID 31337 — fix: point it at a node of chain 31337',
      passing.journal('chain.sqlite'),
      passing.lock(),
      'check: 1 of 4 checks failed',
    ])
    expect(run.code).toBe(1)
  }, 60_000)

  test('a Broker address with no code: ✗ broker names RELAYER_BROKER, exit 1', async () => {
    const run = await check(relayerEnv('broker.sqlite', { RELAYER_BROKER: dead }))
    expect(run.lines).toEqual([
      passing.gasKey(),
      passing.rpc(),
      `✗ broker: RELAYER_BROKER ${dead} has no code on chain 421614 — fix: set RELAYER_BROKER to the Broker deployed on chain 421614 (order-relay deploy deploys one and writes its manifest)`,
      passing.balance(),
      passing.payToken(),
      passing.journal('broker.sqlite'),
      passing.lock(),
      'check: 1 of 7 checks failed',
    ])
    expect(run.code).toBe(1)
  }, 60_000)

  test('another contract as the Broker: ✗ broker says it does not answer as one', async () => {
    const registry = devnet.manifest.contracts.registry
    const run = await check(relayerEnv('other.sqlite', { RELAYER_BROKER: registry }))
    expect(run.lines[2]).toBe(
      `✗ broker: RELAYER_BROKER ${registry} has code but does not answer feeOf() as a Broker (execution reverted) — fix: set RELAYER_BROKER to the Broker contract's address, not another contract's`,
    )
    expect(run.code).toBe(1)
  }, 60_000)

  test('an empty key: ✗ gas key names RELAYER_PK, the chain is still checked, exit 1', async () => {
    const run = await check(relayerEnv('key.sqlite', { RELAYER_PK: '' }))
    expect(run.lines).toEqual([
      "✗ gas key: RELAYER_PK is required: the hex private key of the gas account (0x + 64 hex digits), or another source of the gas key: RELAYER_KEYSTORE (an encrypted keystore file), RELAYER_SIGNER_URL (a remote signer) or RELAYER_KMS_KEY_ID (an AWS KMS key); docs/keys.md — fix: set exactly one of RELAYER_KEYSTORE, RELAYER_SIGNER_URL, RELAYER_KMS_KEY_ID or RELAYER_PK (docs/keys.md)",
      passing.rpc(),
      passing.broker(),
      passing.payToken(),
      passing.nodeInterface(),
      passing.journal('key.sqlite'),
      passing.lock(),
      'check: 1 of 7 checks failed',
    ])
    expect(run.code).toBe(1)
  }, 60_000)

  test('a malformed key is refused without its value', async () => {
    const run = await check(relayerEnv('bad.sqlite', { RELAYER_PK: '0x12345' }))
    expect(run.lines[0]).toBe(
      "✗ gas key: RELAYER_PK must be 0x followed by 64 hex digits (value not shown) — fix: set RELAYER_PK to the gas account's private key: 0x followed by 64 hex digits (it is never printed)",
    )
    expect(run.stdout).not.toContain('12345')
    expect(run.code).toBe(1)
  }, 60_000)

  test('an unreachable RPC (a closed port, credentials in the URL): ✗ rpc without them, exit 1', async () => {
    const port = await freePort()
    const run = await check(relayerEnv('rpc.sqlite', { RELAYER_RPC_URL: `http://user:secret@127.0.0.1:${port}` }))
    expect(run.lines).toEqual([
      passing.gasKey(),
      `✗ rpc: RELAYER_RPC_URL http://127.0.0.1:${port} does not answer (ECONNREFUSED: Unable to connect. Is the computer able to access the url?) — fix: start the node or point RELAYER_RPC_URL at a node of chain 421614 that answers JSON-RPC`,
      passing.journal('rpc.sqlite'),
      passing.lock(),
      'check: 1 of 4 checks failed',
    ])
    expect(run.code).toBe(1)
  }, 60_000)

  test('a balance below RELAYER_GAS_FLOOR_WEI: ✗ gas balance with what to send, exit 1', async () => {
    const floor = 20_000n * 10n ** 18n
    const run = await check(relayerEnv('floor.sqlite', { RELAYER_GAS_FLOOR_WEI: String(floor) }))
    const short = formatEther(floor - (await createPublicClient({ transport: http(rpc) }).getBalance({ address })))
    expect(run.lines[3]).toBe(
      `✗ gas balance: ${address} holds ${balance} ETH, below RELAYER_GAS_FLOOR_WEI ${floor} wei (20000 ETH): POST /broker pauses — fix: send at least ${short} ETH to ${address}, or lower RELAYER_GAS_FLOOR_WEI`,
    )
    expect(run.lines.at(-1)).toBe('check: 1 of 8 checks failed')
    expect(run.code).toBe(1)
  }, 60_000)

  test('pay tokens: a feed price read live, a token with no code and a stale feed each get their line', async () => {
    const feed = (answer: bigint) => deploy(devnet, mockAggregatorV3Abi, mockAggregatorV3Bytecode, [18, 'USDC / ETH', answer])
    const fresh = getAddress(await feed(4n * 10n ** 14n))
    const stale = getAddress(await feed(4n * 10n ** 14n))
    const updatedAt = BigInt(Math.floor(Date.now() / 1000)) - 100_000n
    await write(devnet, 'deployer', { address: stale, abi: mockAggregatorV3Abi, functionName: 'setAnswer', args: [4n * 10n ** 14n, updatedAt] })

    const live = await check(relayerEnv('tokens.sqlite', { RELAYER_TOKENS: `${payToken}=feed:${fresh},${dead}=0.01` }))
    expect(live.lines.slice(4, 6)).toEqual([
      `✓ pay token ${payToken} (USDC): 0.0004 ETH per token (feed, from RELAYER_TOKENS)`,
      `✗ pay token ${dead}: not priced: its decimals() cannot be read (ContractFunctionExecutionError): is it a token on this chain? — fix: correct or remove ${dead} in RELAYER_TOKENS (0.01)`,
    ])
    expect(live.code).toBe(1)

    const old = await check(relayerEnv('tokens.sqlite', { RELAYER_TOKENS: `${payToken}=feed:${stale}` }))
    const line = old.lines[4]!
    const age = Number(/answer is (\d+) s old/.exec(line)?.[1])
    expect(age).toBeGreaterThanOrEqual(100_000)
    expect(age).toBeLessThan(100_060)
    expect(line).toBe(
      `✗ pay token ${payToken} (USDC): not priced: feed ${stale}'s answer is ${age} s old, over RELAYER_PRICE_MAX_AGE_S (90000 s) — fix: check the feed in RELAYER_TOKENS is the chain's live aggregator, or raise RELAYER_PRICE_MAX_AGE_S`,
    )
    expect(old.lines.at(-1)).toBe('check: 1 of 8 checks failed')
    expect(old.code).toBe(1)
  }, 60_000)

  test('NodeInterface: a node that answers for it ✓, one whose calls to it fail ✗', async () => {
    const mock = await deploy(devnet, mockNodeInterfaceAbi, mockNodeInterfaceBytecode)
    try {
      await devnet.testClient.setCode({ address: nodeInterface, bytecode: (await devnet.publicClient.getCode({ address: mock }))! })
      const answering = await check(relayerEnv('l1.sqlite'))
      expect(answering.lines[5]).toBe(`✓ NodeInterface: answers at ${nodeInterface}: orders are priced with their L1 data gas`)
      expect(answering.code).toBe(0)
      // Code there that reverts every NodeInterface call (the Broker's): what a node failing the call looks like.
      await devnet.testClient.setCode({ address: nodeInterface, bytecode: (await devnet.publicClient.getCode({ address: broker as `0x${string}` }))! })
      const failing = await check(relayerEnv('l1.sqlite'))
      expect(failing.lines[5]).toBe(
        `✗ NodeInterface: NodeInterface did not answer (CallExecutionError); orders are refused (UPSTREAM_RPC) until it answers, rather than priced without their L1 data cost — fix: point RELAYER_RPC_URL at an Arbitrum node that answers eth_call to NodeInterface (${nodeInterface})`,
      )
      expect(failing.code).toBe(1)
    } finally {
      await devnet.testClient.setCode({ address: nodeInterface, bytecode: '0x' })
    }
  }, 60_000)

  test('a configuration problem is a ✗ config line naming the variable, exit 1 (not a usage error)', async () => {
    const run = await check(relayerEnv('config.sqlite', { RELAYER_FEE_FLOOR_BPS: 'lots' }))
    expect(run.lines).toEqual([
      '✗ config: RELAYER_FEE_FLOOR_BPS must be an integer from 0 to 10000 (got "lots") — fix: set RELAYER_FEE_FLOOR_BPS as described (order-relay check --help lists every variable; docs/configuration.md)',
      'check: 1 of 1 checks failed',
    ])
    expect(run.code).toBe(1)
  }, 60_000)

  test('nothing configured: the relayer is checked, each missing variable a ✗ line with its fix', async () => {
    const run = await check({})
    const described = '(order-relay check --help lists every variable; docs/configuration.md)'
    expect(run.lines).toEqual([
      `✗ config: RELAYER_CHAIN_ID is required (421614 or 46630, or a devnet chain id), or give a manifest — fix: set RELAYER_CHAIN_ID as described ${described}`,
      `✗ config: RELAYER_BROKER (the Broker contract address) or RELAYER_MANIFEST is required — fix: set RELAYER_BROKER as described ${described}`,
      "✗ gas key: RELAYER_PK is required: the hex private key of the gas account (0x + 64 hex digits), or another source of the gas key: RELAYER_KEYSTORE (an encrypted keystore file), RELAYER_SIGNER_URL (a remote signer) or RELAYER_KMS_KEY_ID (an AWS KMS key); docs/keys.md — fix: set exactly one of RELAYER_KEYSTORE, RELAYER_SIGNER_URL, RELAYER_KMS_KEY_ID or RELAYER_PK (docs/keys.md)",
      'check: 3 of 3 checks failed',
    ])
    expect(run.code).toBe(1)
  }, 30_000)

  test('a --manifest that cannot be read: ✗ config names the flag', async () => {
    const run = await check({ RELAYER_PK: key }, ['--manifest', join(dir, 'missing.json')])
    expect(run.lines[0]).toBe(`✗ config: --manifest: cannot read manifest ${join(dir, 'missing.json')}: ENOENT — fix: pass --manifest the path of a manifest order-relay deploy or devnet wrote`)
    expect(run.code).toBe(1)
  }, 30_000)

  test('a journal in use by a running relayer: ✗ journal lock names its process; the relayer keeps its lock', async () => {
    const env = relayerEnv('busy.sqlite', { RELAYER_PORT: '0' })
    const relayer = Bun.spawn([process.execPath, 'src/cli/main.ts', 'relayer'], { env: { PATH: process.env.PATH ?? '', ...env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
    try {
      const output = watchOutput(relayer)
      await output.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/, 45_000)
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output.text)![1]!
      const holder = JSON.parse(readFileSync(join(dir, 'busy.sqlite.holder'), 'utf8')) as { pid: number; since: number }
      expect(holder.pid).toBe(relayer.pid)
      const run = await check(env)
      expect(run.lines).toEqual([
        passing.gasKey(),
        passing.rpc(),
        passing.broker(),
        passing.balance(),
        passing.payToken(),
        passing.nodeInterface(),
        `✓ journal: ${join(dir, 'busy.sqlite')} exists and is writable`,
        `✗ journal lock: RELAYER_DB ${join(dir, 'busy.sqlite')} is in use by relayer process ${relayer.pid} on ${hostname()} (since ${new Date(holder.since).toISOString()}) — fix: stop that relayer first (one relayer process per gas key), or give this one its own gas key and journal`,
        'check: 1 of 8 checks failed',
      ])
      expect(run.code).toBe(1)
      // Looked at, not taken: the relayer still holds it and still serves.
      expect(lockHolder(join(dir, 'busy.sqlite'))).toBe(`relayer process ${relayer.pid} on ${hostname()} (since ${new Date(holder.since).toISOString()})`)
      expect((await fetch(`${url}/health`)).status).toBe(200)
      expect(relayer.exitCode).toBeNull()
    } finally {
      relayer.kill('SIGTERM')
      await relayer.exited
    }
    // Once the relayer is gone, the same journal passes.
    const after = await check(relayerEnv('busy.sqlite'))
    expect(after.lines.slice(-4)).toEqual([
      `✓ journal: ${join(dir, 'busy.sqlite')} exists and is writable`,
      passing.lock(),
      `✓ journal history: for chain 421614 and ${address}, no tx mined yet`,
      'check: all 9 checks passed',
    ])
    expect(after.code).toBe(0)
  }, 90_000)

  test("another chain's journal: ✗ journal history, and the journal is left as it was", async () => {
    const path = join(dir, 'chain1.sqlite')
    openJournal(path, { chainId: 1, address }).close()
    const before = readFileSync(path)
    const run = await check(relayerEnv('chain1.sqlite'))
    expect(run.lines.slice(-2)).toEqual([
      `✗ journal history: RELAYER_DB ${path} belongs to chain:key 1:${address.toLowerCase()}, not 421614:${address.toLowerCase()}; give each chain and gas key its own journal — fix: move ${path} away or set RELAYER_DB to a journal of this chain and key, after checking the key's pending txs on chain`,
      'check: 1 of 9 checks failed',
    ])
    expect(run.code).toBe(1)
    expect(readFileSync(path).equals(before)).toBe(true)
    expect(readdirSync(dir).filter((name) => name.startsWith('chain1.')).sort()).toEqual(['chain1.sqlite', 'chain1.sqlite.lock'])
  }, 60_000)

  test('a journal path under a file: ✗ journal says why', async () => {
    writeFileSync(join(dir, 'plain'), '')
    const run = await check(relayerEnv('plain/j.sqlite'))
    expect(run.lines.at(-3)).toBe(
      `✗ journal: RELAYER_DB ${join(dir, 'plain/j.sqlite')} cannot be created: ${join(dir, 'plain')} is a file, not a folder — fix: set RELAYER_DB to a path under a folder`,
    )
    expect(run.code).toBe(1)
  }, 60_000)

  test('--json: one JSON array of {name, ok, detail, fix} on stdout and nothing else', async () => {
    const run = await check(relayerEnv('json.sqlite', { RELAYER_BROKER: dead }), ['--json'])
    const report = v.parse(CheckReportSchema, JSON.parse(run.stdout))
    expect(report.map((result) => [result.name, result.ok])).toEqual([
      ['gas key', true],
      ['rpc', true],
      ['broker', false],
      ['gas balance', true],
      [`pay token ${payToken} (USDC)`, true],
      ['journal', true],
      ['journal lock', true],
    ])
    expect(report[2]).toEqual({
      name: 'broker',
      ok: false,
      detail: `RELAYER_BROKER ${dead} has no code on chain 421614`,
      fix: 'set RELAYER_BROKER to the Broker deployed on chain 421614 (order-relay deploy deploys one and writes its manifest)',
    })
    expect(report[0]).toEqual({ name: 'gas key', ok: true, detail: `RELAYER_PK: address ${address}`, fix: null })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(1)
  }, 60_000)

  test('a node that answers its chain id and then fails: each check that needs it fails on its own, without credentials', async () => {
    // What a real node does only when it breaks mid-way: eth_chainId answers, everything else 503.
    const node = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(request) {
        const body = (await request.json()) as { id: number; method: string }
        if (body.method === 'eth_chainId') return Response.json({ jsonrpc: '2.0', id: body.id, result: '0x66eee' })
        return new Response('overloaded', { status: 503 })
      },
    })
    try {
      const run = await check(relayerEnv('failing.sqlite', { RELAYER_RPC_URL: `http://user:secret@127.0.0.1:${node.port}/v2/abcdefabcdefabcdefabcdef` }))
      const fix = 'run order-relay check again once the RPC (and the service it names) answers'
      expect(run.lines).toEqual([
        passing.gasKey(),
        `✓ rpc: http://127.0.0.1:${node.port}/v2/*** answers as chain 421614`,
        `✗ broker: could not be checked: "overloaded" — fix: ${fix}`,
        `✗ gas balance: could not be checked: "overloaded" — fix: ${fix}`,
        // The manifest's token, and the chain's built-in one (whose absence here the node could not say).
        ...[payToken, '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d'].map(
          (token) =>
            `✗ pay token ${token}: not priced: the relayer's RPC failed while reading it (its decimals have not been read yet) — fix: run order-relay check again once RELAYER_RPC_URL answers every read`,
        ),
        passing.journal('failing.sqlite'),
        passing.lock(),
        'check: 4 of 8 checks failed',
      ])
      expect(run.stdout).not.toContain('abcdefabcdef')
      expect(run.code).toBe(1)
    } finally {
      node.stop(true)
    }
  }, 60_000)

  test('--help lists its flags and the variables it reads', async () => {
    const run = await check({}, ['--help'])
    expect(run.lines.slice(0, 3)).toEqual(["order-relay check: preflight (like nginx -t): check the relayer's and indexer's configuration against the chain", '', 'Usage: order-relay check [options]'])
    expect(run.lines).toContain('  --json            print one JSON array of {name, ok, detail, fix} and nothing else')
    expect(run.stdout).toContain('  RELAYER_GAS_FLOOR_WEI ')
    expect(run.stdout).toContain('  INDEXER_DATABASE_URL ')
    expect(run.code).toBe(0)
  }, 30_000)

  test('a bad flag is a usage error: exit 2', async () => {
    const run = await check({}, ['--bogus'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('Usage: order-relay check [options]')
    expect(run.stdout).toBe('')
  }, 30_000)
})

describe('order-relay check: Redis (RELAYER_REDIS_URL)', () => {
  test('unreachable (a closed port, a password in the URL): ✗ redis without it, exit 1', async () => {
    const port = await freePort()
    const run = await check(relayerEnv('redis-down.sqlite', { RELAYER_REDIS_URL: `redis://:secret@127.0.0.1:${port}` }))
    expect(run.lines.slice(-2)).toEqual([
      `✗ redis: RELAYER_REDIS_URL redis://127.0.0.1:${port} does not answer (ERR_REDIS_CONNECTION_CLOSED) — fix: start Redis or Valkey there, check the URL and its password, or unset RELAYER_REDIS_URL to run a single relayer on local state`,
      'check: 1 of 9 checks failed',
    ])
    expect(run.code).toBe(1)
  }, 60_000)

  if (!hasRedisServer) console.log(`test/cli/check.test.ts: skipping the redis-server cases: ${redisServerPath} is absent (apt-get install -y redis-server)`)
  test.skipIf(!hasRedisServer)('a real redis-server: reachable; without an append-only file ✗ redis settings, with the settings replicas need ✓', async () => {
    // The fixture's server keeps no append-only file; this one also evicts under memory pressure.
    const bare = await startRedis({ args: ['--maxmemory-policy', 'allkeys-lru'] })
    try {
      const run = await check(relayerEnv('redis-bare.sqlite', { RELAYER_REDIS_URL: bare.url }))
      expect(run.lines.slice(-4)).toEqual([
        `✓ redis: RELAYER_REDIS_URL ${bare.url} answers`,
        '✗ redis settings: Redis evicts keys under memory pressure (maxmemory-policy allkeys-lru, no maxmemory set yet) — fix: set maxmemory-policy noeviction (in redis.conf, or CONFIG SET maxmemory-policy noeviction) (docs/scaling.md)',
        "✗ redis settings: Redis keeps no append-only file (appendonly no): a restart brings it back without the replicas' claims and outcomes, and every replica then refuses new orders for RELAYER_REDIS_RESTORE_MS while they re-publish — fix: set appendonly yes (in redis.conf, or CONFIG SET appendonly yes) so a restart keeps the shared state (docs/scaling.md)",
        'check: 2 of 11 checks failed',
      ])
      expect(run.code).toBe(1)
    } finally {
      await bare.stop()
    }
    const ready = await startRedis({ args: ['--appendonly', 'yes', '--maxmemory-policy', 'noeviction'] })
    try {
      const run = await check(relayerEnv('redis-ready.sqlite', { RELAYER_REDIS_URL: ready.url }))
      expect(run.lines.slice(-3)).toEqual([
        `✓ redis: RELAYER_REDIS_URL ${ready.url} answers`,
        '✓ redis settings: maxmemory-policy noeviction and appendonly yes, as replicas need (docs/scaling.md)',
        'check: all 10 checks passed',
      ])
      expect(run.code).toBe(0)
    } finally {
      await ready.stop()
    }
  }, 90_000)
})

describe('order-relay check: the indexer', () => {
  const indexerEnv = (more: Record<string, string> = {}) => ({ INDEXER_MANIFEST: manifest, INDEXER_DB: join(dir, 'index.sqlite'), ...more })
  const indexerPassing = () => [`✓ indexer rpc: ${rpc} answers as chain 421614`, '✓ indexer contracts: registry, inbox, pool and escrow have code on chain 421614']

  test('INDEXER_* only: the indexer is checked, with its SQLite store', async () => {
    const run = await check(indexerEnv())
    expect(run.lines).toEqual([
      ...indexerPassing(),
      `✓ indexer store: ${join(dir, 'index.sqlite')} does not exist yet; the indexer creates it at start (${dir} is writable)`,
      'check: all 3 checks passed',
    ])
    expect(run.code).toBe(0)
  }, 60_000)

  test('PostgreSQL unreachable (a closed port, a password in the URL): ✗ postgresql without it, exit 1', async () => {
    const port = await freePort()
    const run = await check(indexerEnv({ INDEXER_DATABASE_URL: `postgres://indexer:secret@127.0.0.1:${port}/index` }))
    expect(run.lines).toEqual([
      ...indexerPassing(),
      `✗ postgresql: INDEXER_DATABASE_URL postgres://127.0.0.1:${port}/index: cannot open the index in PostgreSQL (ERR_POSTGRES_CONNECTION_REFUSED: Failed to connect) — fix: check that the server runs, the URL and its credentials`,
      'check: 1 of 3 checks failed',
    ])
    expect(run.code).toBe(1)
  }, 60_000)

  if (postgresMissing) console.log(`test/cli/check.test.ts: skipping the PostgreSQL case: ${postgresMissing}`)
  test.skipIf(postgresMissing !== undefined)('a real PostgreSQL: reachable, its schema created by the first indexer; a reader needs it first', async () => {
    const postgres = await startPostgres('checked')
    try {
      const run = await check(indexerEnv({ INDEXER_DATABASE_URL: postgres.url }))
      const schema = /schema (indexer_421614_[0-9a-f]{12})/.exec(run.stdout)?.[1]
      expect(run.lines).toEqual([
        ...indexerPassing(),
        `✓ postgresql: INDEXER_DATABASE_URL ${postgres.url.replace(/\/\/[^@]*@/, '//')} answers; schema ${schema} is created by the first indexer to start`,
        'check: all 3 checks passed',
      ])
      expect(run.code).toBe(0)
      const reader = await check(indexerEnv({ INDEXER_DATABASE_URL: postgres.url, INDEXER_ROLE: 'reader' }))
      expect(reader.lines[2]).toBe(
        `✗ postgresql: INDEXER_DATABASE_URL ${postgres.url.replace(/\/\/[^@]*@/, '//')}: schema ${schema} does not exist yet — fix: start a writer first (an indexer with INDEXER_ROLE unset creates it); INDEXER_ROLE=reader never creates or changes anything`,
      )
      expect(reader.code).toBe(1)
    } finally {
      await postgres.stop()
    }
  }, 120_000)

  test('both RELAYER_* and INDEXER_*: both are checked, as `serve` runs them', async () => {
    const run = await check({ ...relayerEnv('both.sqlite'), ...indexerEnv() })
    expect(run.lines).toEqual([
      passing.gasKey(),
      passing.rpc(),
      passing.broker(),
      passing.balance(),
      passing.payToken(),
      passing.nodeInterface(),
      passing.journal('both.sqlite'),
      passing.lock(),
      ...indexerPassing(),
      `✓ indexer store: ${join(dir, 'index.sqlite')} does not exist yet; the indexer creates it at start (${dir} is writable)`,
      'check: all 11 checks passed',
    ])
    expect(run.code).toBe(0)
  }, 60_000)

  test('--indexer with both sets of variables: only the indexer is checked', async () => {
    const run = await check({ ...relayerEnv('only.sqlite', { RELAYER_PK: '' }), ...indexerEnv() }, ['--indexer'])
    expect(run.lines).toEqual([
      ...indexerPassing(),
      `✓ indexer store: ${join(dir, 'index.sqlite')} does not exist yet; the indexer creates it at start (${dir} is writable)`,
      'check: all 3 checks passed',
    ])
    expect(run.code).toBe(0)
  }, 60_000)
})
