import { afterAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, readIndexerConfig } from '../../src/indexer/index.ts'

const dir = mkdtempSync(join(tmpdir(), 'indexer-config-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const registry = '0x5FbDB2315678afecb367f032d93F642f64180aa3'
const inbox = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512'
const pool = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0'
const escrow = '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9'
const base = {
  INDEXER_CHAIN_ID: '31337',
  INDEXER_RPC_URL: 'http://127.0.0.1:8545',
  INDEXER_ADDRESSES: [registry, inbox, pool, escrow].map((a) => a.toLowerCase()).join(','),
  INDEXER_DEPLOYED_AT: '7',
}

function manifestFile(name: string, overrides: Record<string, unknown> = {}) {
  const path = join(dir, name)
  const contracts = { broker: registry, payToken: registry, allocationAdapter: registry, expressLaneAdapter: registry, expressLaneAuction: registry, attestedAdapter: registry, registry, inbox, pool, escrow }
  writeFileSync(path, JSON.stringify({ chainId: 421614, rpcUrl: 'http://127.0.0.1:9999', deployedAt: '12', contracts, ...overrides }))
  return path
}

function problems(env: Record<string, string>, overrides = {}): string {
  try {
    readIndexerConfig(env, overrides)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error('expected a ConfigError')
}

describe('readIndexerConfig', () => {
  test('reads addresses (checksummed, in order) and deployedAt, with the documented defaults', () => {
    expect(readIndexerConfig(base)).toEqual({
      chainId: 31337,
      rpcUrl: 'http://127.0.0.1:8545',
      addresses: [registry, inbox, pool, escrow],
      deployedAt: 7n,
      host: '127.0.0.1',
      port: 8788,
      retention: 10_000,
      staleBlocks: 64,
      headStaleMs: 30_000,
      pollMs: 1_000,
      maxRange: 2_000,
      reorgWindow: 128,
      role: 'auto',
      writerTimeoutMs: 30_000,
      stream: { heartbeatMs: 15_000, stallMs: 10_000, maxClients: 10_000 },
      // One file per chain and address set, under the working directory's .order-relay/.
      db: join(process.cwd(), '.order-relay', `indexer-31337-${createHash('sha256').update(`${base.INDEXER_ADDRESSES}@7`).digest('hex').slice(0, 12)}.sqlite`),
    })
  })

  test('another address set or deployedAt gets another default store file; INDEXER_DB wins', () => {
    const other = readIndexerConfig({ ...base, INDEXER_DEPLOYED_AT: '8' }).db
    expect(other).not.toBe(readIndexerConfig(base).db)
    expect(other).toStartWith(join(process.cwd(), '.order-relay', 'indexer-31337-'))
    expect(readIndexerConfig({ ...base, INDEXER_DB: ':memory:' }).db).toBe(':memory:')
    expect(readIndexerConfig({ ...base, INDEXER_DB: '/var/lib/relay/index.sqlite' }).db).toBe('/var/lib/relay/index.sqlite')
  })

  test('INDEXER_DATABASE_URL: a postgres URL is kept as given; anything else is refused without echoing it', () => {
    expect(readIndexerConfig(base).databaseUrl).toBeUndefined()
    expect(readIndexerConfig({ ...base, INDEXER_DATABASE_URL: 'postgres://indexer:pw@db:5432/index' }).databaseUrl).toBe('postgres://indexer:pw@db:5432/index')
    expect(readIndexerConfig({ ...base, INDEXER_DATABASE_URL: 'postgresql://db/index' }).databaseUrl).toBe('postgresql://db/index')
    expect(() => readIndexerConfig({ ...base, INDEXER_DATABASE_URL: 'mysql://u:secret-pw@db/index' })).toThrow(
      'INDEXER_DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database)',
    )
    try {
      readIndexerConfig({ ...base, INDEXER_DATABASE_URL: 'mysql://u:secret-pw@db/index' })
    } catch (error) {
      expect(String(error)).not.toContain('secret-pw')
    }
  })

  test('INDEXER_ROLE, INDEXER_WRITER_TIMEOUT_MS and the stream limits: read, checked, and a reader needs INDEXER_DATABASE_URL', () => {
    const url = 'postgres://indexer@db:5432/index'
    const config = readIndexerConfig({
      ...base,
      INDEXER_DATABASE_URL: url,
      INDEXER_ROLE: 'reader',
      INDEXER_WRITER_TIMEOUT_MS: '5000',
      INDEXER_STREAM_HEARTBEAT_MS: '200',
      INDEXER_STREAM_STALL_MS: '300',
      INDEXER_STREAM_MAX_CLIENTS: '7',
    })
    expect([config.role, config.writerTimeoutMs, config.stream]).toEqual(['reader', 5000, { heartbeatMs: 200, stallMs: 300, maxClients: 7 }])
    expect(readIndexerConfig({ ...base, INDEXER_DATABASE_URL: url, INDEXER_ROLE: 'auto' }).role).toBe('auto')
    expect(problems({ ...base, INDEXER_ROLE: 'reader' })).toContain('INDEXER_ROLE=reader needs INDEXER_DATABASE_URL')
    expect(problems({ ...base, INDEXER_DATABASE_URL: url, INDEXER_ROLE: 'writer' })).toContain('INDEXER_ROLE must be auto or reader (got "writer")')
    expect(problems({ ...base, INDEXER_STREAM_STALL_MS: '0' })).toContain('INDEXER_STREAM_STALL_MS must be an integer from 10 to 3600000')
  })

  test('reads every optional variable', () => {
    const config = readIndexerConfig({
      ...base,
      INDEXER_HOST: '0.0.0.0',
      INDEXER_PORT: '9000',
      INDEXER_RETENTION: '3',
      INDEXER_STALE_BLOCKS: '0',
      INDEXER_HEAD_STALE_MS: '500',
      INDEXER_POLL_MS: '50',
      INDEXER_MAX_RANGE: '10',
    })
    expect([config.host, config.port, config.retention, config.staleBlocks, config.headStaleMs, config.pollMs, config.maxRange]).toEqual(['0.0.0.0', 9000, 3, 0, 500, 50, 10])
  })

  test('a manifest supplies chain, RPC, addresses and deployedAt; --manifest wins over INDEXER_MANIFEST', () => {
    const fromEnv = manifestFile('env.json')
    const fromFlag = manifestFile('flag.json', { deployedAt: '99', rpcUrl: 'http://127.0.0.1:7777' })
    const config = readIndexerConfig({ INDEXER_MANIFEST: fromEnv }, { manifestPath: fromFlag })
    expect({ chainId: config.chainId, rpcUrl: config.rpcUrl, addresses: config.addresses, deployedAt: config.deployedAt }).toEqual({
      chainId: 421614,
      rpcUrl: 'http://127.0.0.1:7777',
      addresses: [registry, inbox, pool, escrow],
      deployedAt: 99n,
    })
    expect(readIndexerConfig({ INDEXER_MANIFEST: fromEnv }).deployedAt).toBe(12n)
    // Explicit variables win over the manifest.
    expect(readIndexerConfig({ INDEXER_MANIFEST: fromEnv, INDEXER_RPC_URL: 'http://node:1', INDEXER_DEPLOYED_AT: '0' })).toMatchObject({ rpcUrl: 'http://node:1', deployedAt: 0n })
  })

  test('a known chain without INDEXER_RPC_URL uses its public RPC', () => {
    const { INDEXER_RPC_URL: _, ...env } = base
    expect(readIndexerConfig({ ...env, INDEXER_CHAIN_ID: '421614' }).rpcUrl).toBe('https://sepolia-rollup.arbitrum.io/rpc')
  })

  test('every bad value is rejected with a message naming its variable', () => {
    const message = problems({
      ...base,
      INDEXER_CHAIN_ID: 'one',
      INDEXER_RPC_URL: 'ftp://node',
      INDEXER_PORT: '70000',
      INDEXER_RETENTION: '0',
      INDEXER_STALE_BLOCKS: '-1',
      INDEXER_HEAD_STALE_MS: '1s',
      INDEXER_POLL_MS: '0',
      INDEXER_MAX_RANGE: 'many',
      INDEXER_DEPLOYED_AT: '1.5',
    })
    for (const name of ['INDEXER_CHAIN_ID', 'INDEXER_RPC_URL', 'INDEXER_PORT', 'INDEXER_RETENTION', 'INDEXER_STALE_BLOCKS', 'INDEXER_HEAD_STALE_MS', 'INDEXER_POLL_MS', 'INDEXER_MAX_RANGE', 'INDEXER_DEPLOYED_AT']) {
      expect(message).toContain(`- ${name} `)
    }
  })

  test('addresses: four of them, valid, and deployedAt with them', () => {
    expect(problems({ ...base, INDEXER_ADDRESSES: `${registry},${inbox},${pool}` })).toContain('INDEXER_ADDRESSES must be 4 comma-separated addresses')
    expect(problems({ ...base, INDEXER_ADDRESSES: `${registry},${inbox},${pool},0x12` })).toContain('INDEXER_ADDRESSES must be 4 comma-separated addresses')
    const { INDEXER_DEPLOYED_AT: _, ...noBlock } = base
    expect(problems(noBlock)).toContain('INDEXER_DEPLOYED_AT is required with INDEXER_ADDRESSES')
    const { INDEXER_ADDRESSES: __, ...noAddresses } = base
    expect(problems(noAddresses)).toContain('INDEXER_MANIFEST or INDEXER_ADDRESSES (registry,inbox,pool,escrow) is required')
    expect(problems({})).toContain('INDEXER_CHAIN_ID is required')
  })

  test('a manifest that cannot be read, or of another chain, is named', () => {
    expect(problems({ INDEXER_MANIFEST: join(dir, 'missing.json') })).toContain(`INDEXER_MANIFEST: cannot read manifest ${join(dir, 'missing.json')}: ENOENT`)
    expect(problems({ INDEXER_MANIFEST: manifestFile('other.json'), INDEXER_CHAIN_ID: '46630' })).toContain("INDEXER_CHAIN_ID 46630 does not match the manifest's chainId 421614")
  })
})
