import { afterAll, describe, expect, test } from 'bun:test'
import { ConfigError } from '../../src/shared/index.ts'
import { readMcpConfig } from '../../src/mcp/index.ts'
import { removeTempDirs, runCli, tempDir, writeJson, writeManifest } from './helpers.ts'

const registry = '0x0165878a594ca255338adfa4d48449f69242eb8f'
const other = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const contracts = Object.fromEntries(
  ['broker', 'payToken', 'allocationAdapter', 'expressLaneAdapter', 'expressLaneAuction', 'attestedAdapter', 'inbox', 'pool', 'escrow'].map((name) => [name, other]),
)
const manifest = { chainId: 31337, rpcUrl: 'http://127.0.0.1:8545', deployedAt: '1', contracts: { ...contracts, registry } }
const dir = tempDir()
afterAll(removeTempDirs)
const manifestPath = writeManifest(dir, manifest as never)

const problems = (env: Record<string, string>, overrides = {}) => {
  try {
    readMcpConfig(env, overrides)
    return 'no error'
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
}

describe('readMcpConfig: the indexer\'s variables or a manifest', () => {
  test('a manifest gives chain, RPC and registry (checksummed)', () => {
    expect(readMcpConfig({ INDEXER_MANIFEST: manifestPath })).toEqual({
      chainId: 31337,
      rpcUrl: 'http://127.0.0.1:8545',
      registry: '0x0165878A594ca255338adfa4d48449f69242Eb8F',
    })
  })

  test('--manifest wins over INDEXER_MANIFEST, INDEXER_RPC_URL over the manifest\'s RPC', () => {
    expect(readMcpConfig({ INDEXER_MANIFEST: '/nonexistent.json', INDEXER_RPC_URL: 'https://rpc.example/v1/key' }, { manifestPath })).toEqual({
      chainId: 31337,
      rpcUrl: 'https://rpc.example/v1/key',
      registry: '0x0165878A594ca255338adfa4d48449f69242Eb8F',
    })
  })

  test('INDEXER_ADDRESSES: the first address is the registry; a known chain brings its public RPC', () => {
    expect(readMcpConfig({ INDEXER_CHAIN_ID: '421614', INDEXER_ADDRESSES: `${registry}, ${other},${other},${other}` })).toEqual({
      chainId: 421614,
      rpcUrl: 'https://sepolia-rollup.arbitrum.io/rpc',
      registry: '0x0165878A594ca255338adfa4d48449f69242Eb8F',
    })
  })

  test('every problem is named at once', () => {
    expect(problems({})).toBe(
      'invalid MCP server configuration:\n' +
        '  - INDEXER_CHAIN_ID is required (421614 or 46630, or a devnet chain id), or give a manifest\n' +
        '  - INDEXER_ADDRESSES (registry,inbox,pool,escrow) or INDEXER_MANIFEST is required',
    )
    expect(problems({ INDEXER_CHAIN_ID: '31337', INDEXER_ADDRESSES: 'registry' })).toBe(
      'invalid MCP server configuration:\n' +
        '  - INDEXER_RPC_URL is required: chain 31337 has no public RPC built in\n' +
        '  - INDEXER_ADDRESSES must be a comma list of addresses (0x + 40 hex digits), the LienRegistry first',
    )
    expect(problems({ INDEXER_MANIFEST: manifestPath, INDEXER_CHAIN_ID: '46630', INDEXER_RPC_URL: 'file:///x' })).toBe(
      'invalid MCP server configuration:\n' +
        "  - INDEXER_CHAIN_ID 46630 does not match the manifest's chainId 31337\n" +
        '  - INDEXER_RPC_URL must be an http(s) or ws(s) URL',
    )
    expect(problems({ INDEXER_MANIFEST: manifestPath, INDEXER_RPC_URL: 'wss://rpc.example' })).toBe(
      'invalid MCP server configuration:\n  - INDEXER_RPC_URL must be an http(s) URL for order-relay mcp (it reads with single requests)',
    )
    expect(problems({}, { manifestPath: `${dir}/missing.json` })).toBe(
      `invalid MCP server configuration:\n  - --manifest: cannot read manifest ${dir}/missing.json: ENOENT`,
    )
  })
})

describe('order-relay mcp: usage', () => {
  test('bad configuration or flags exit 2 with the problem on stderr, nothing on stdout', async () => {
    const run = await runCli(['mcp'])
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toStartWith('order-relay mcp: invalid MCP server configuration:\n  - INDEXER_CHAIN_ID is required')
    const flag = await runCli(['mcp', '--port', '1'])
    expect(flag.code).toBe(2)
    expect(flag.stdout).toBe('')
    const badManifest = await runCli(['mcp', '--manifest', writeJson(dir, 'bad.json', { chainId: 1 })])
    expect(badManifest.code).toBe(2)
    expect(badManifest.stderr).toStartWith(`order-relay mcp: invalid MCP server configuration:\n  - --manifest: manifest ${dir}/bad.json is invalid at `)
  }, 20_000)
})
