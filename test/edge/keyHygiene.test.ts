import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { createRelayer, readRelayerConfig } from '../../src/relayer/index.ts'
import { redactUrl, redactUrls, silentLogger } from '../../src/shared/index.ts'

const order = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const hex64 = (value: bigint) => `0x${value.toString(16).padStart(64, '0')}`
const outOfRange = [
  ['all ones', `0x${'f'.repeat(64)}`],
  ['the curve order', hex64(order)],
  ['zero', hex64(0n)],
] as const

const dir = mkdtempSync(join(tmpdir(), 'key-hygiene-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// A manifest `order` can read before it looks at CONSUMER_PK (nothing is contacted).
const manifestPath = join(dir, 'manifest.json')
const zero = `0x${'0'.repeat(39)}1`
writeFileSync(
  manifestPath,
  JSON.stringify({
    chainId: 31337,
    rpcUrl: 'http://127.0.0.1:1',
    relayerUrl: 'http://127.0.0.1:1',
    deployedAt: '0',
    contracts: Object.fromEntries(
      ['broker', 'payToken', 'allocationAdapter', 'expressLaneAdapter', 'expressLaneAuction', 'attestedAdapter', 'registry', 'inbox', 'pool', 'escrow'].map((k) => [k, zero]),
    ),
  }),
)

const commands = {
  RELAYER_PK: { argv: ['relayer'], env: { RELAYER_CHAIN_ID: '31337', RELAYER_RPC_URL: 'http://127.0.0.1:1', RELAYER_BROKER: zero, RELAYER_PORT: '0' } },
  DEPLOYER_PK: { argv: ['deploy', '--rpc', 'http://127.0.0.1:1'], env: {} },
  CONSUMER_PK: { argv: ['order', '--manifest', manifestPath], env: {} },
} as const

async function runCli(argv: readonly string[], env: Record<string, string>) {
  const child = Bun.spawn([process.execPath, 'src/cli/main.ts', ...argv], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  clearTimeout(timer)
  return { code, output: stdout + stderr }
}

describe('an out-of-range private key is a configuration error that never shows the value', () => {
  for (const [variable, { argv, env }] of Object.entries(commands)) {
    for (const [what, key] of outOfRange) {
      test(`${variable} = ${what}: exit 2, the variable named, the value absent`, async () => {
        const { code, output } = await runCli(argv, { ...env, [variable]: key })
        expect(code).toBe(2)
        expect(output).toContain(`${variable} is not a valid secp256k1 private key`)
        const digits = key.slice(2).replace(/^0+/, '')
        if (digits.length > 0) {
          expect(output.toLowerCase()).not.toContain(digits.toLowerCase())
          expect(output).not.toContain(BigInt(key).toString())
        }
      }, 40_000)
    }
  }

  test('the largest valid key (order − 1) and 1 are accepted', () => {
    for (const key of [hex64(order - 1n), hex64(1n)]) {
      const config = readRelayerConfig({ RELAYER_PK: key, RELAYER_CHAIN_ID: '31337', RELAYER_RPC_URL: 'http://127.0.0.1:1', RELAYER_BROKER: zero })
      expect(config.privateKey).toBe(key as `0x${string}`)
    }
  })
})

describe('the key leaves the configuration once the account is built', () => {
  test('createRelayer takes RELAYER_PK out of the config object it was given', () => {
    const config = readRelayerConfig({
      RELAYER_PK: devnetAccounts.relayer.privateKey,
      RELAYER_CHAIN_ID: '31337',
      RELAYER_RPC_URL: 'http://127.0.0.1:1',
      RELAYER_BROKER: zero,
      // No file left behind in the working directory (the default journal's place).
      RELAYER_DB: ':memory:',
    })
    const relayer = createRelayer(config, { logger: silentLogger, version: 'test' })
    expect(relayer.address).toBe(devnetAccounts.relayer.address)
    expect('privateKey' in config).toBe(false)
    expect(JSON.stringify(relayer.context.config, (_, v) => (typeof v === 'bigint' ? v.toString() : v))).not.toContain(devnetAccounts.relayer.privateKey.slice(2))
  })
})

describe('RPC URLs are shown without credentials or query strings', () => {
  test.each([
    ['https://user:secret@rpc.example.com/path?apikey=abc#frag', 'https://rpc.example.com/path'],
    ['https://arb-sepolia.g.alchemy.com/v2/AbCdEfGhIjKlMnOpQrStUv123', 'https://arb-sepolia.g.alchemy.com/v2/***'],
    ['wss://x.example/ws?token=1', 'wss://x.example/ws'],
    ['http://127.0.0.1:8545', 'http://127.0.0.1:8545'],
    ['not a url', '<RPC URL not shown>'],
  ])('%s → %s', (raw, shown) => {
    expect(redactUrl(raw)).toBe(shown)
  })

  test('inside a library message', () => {
    expect(redactUrls('HTTP request failed.\nURL: https://u:p@rpc.example.com/k?key=zzz\nRequest body: {}')).toBe(
      'HTTP request failed.\nURL: https://rpc.example.com/k\nRequest body: {}',
    )
  })

  test('deploy: an unreachable RPC with credentials is named without them', async () => {
    const { code, output } = await runCli(['deploy', '--rpc', 'http://user:hunter2@127.0.0.1:1/v2/AbCdEfGhIjKlMnOpQrStUv123?apikey=sekrit'], {
      DEPLOYER_PK: devnetAccounts.deployer.privateKey,
    })
    expect(code).toBe(1)
    expect(output).toContain('cannot reach http://127.0.0.1:1/v2/***')
    for (const secret of ['hunter2', 'sekrit', 'AbCdEfGhIjKlMnOpQrStUv123']) expect(output).not.toContain(secret)
  }, 40_000)

  test('order: an unreachable RPC from the manifest is named without its query', async () => {
    const withKey = join(dir, 'with-key.json')
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
    writeFileSync(withKey, JSON.stringify({ ...manifest, rpcUrl: 'http://127.0.0.1:1/?apikey=sekrit' }))
    const { output } = await runCli(['order', '--manifest', withKey], { CONSUMER_PK: devnetAccounts.consumer.privateKey })
    expect(output).not.toContain('sekrit')
  }, 40_000)
})
