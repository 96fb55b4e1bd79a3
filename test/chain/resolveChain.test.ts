// The relayer, the indexer and the MCP server resolve manifest → chain → RPC with one
// function (src/chain/resolveChain.ts): the same situation reads the same, each
// service naming its own variables.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolveChain } from '../../src/chain/index.ts'
import { readIndexerConfig } from '../../src/indexer/index.ts'
import { readMcpConfig } from '../../src/mcp/index.ts'
import { readRelayerConfig } from '../../src/relayer/index.ts'
import { createEnvReader, type Env } from '../../src/shared/index.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-resolve-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const address = (byte: string) => `0x${byte.repeat(20)}`
const manifestPath = join(dir, 'manifest.json')
const names = ['broker', 'payToken', 'allocationAdapter', 'expressLaneAdapter', 'expressLaneAuction', 'attestedAdapter', 'registry', 'inbox', 'pool', 'escrow']
writeFileSync(manifestPath, JSON.stringify({ chainId: 31337, rpcUrl: 'http://127.0.0.1:8545', deployedAt: '1', contracts: Object.fromEntries(names.map((name, i) => [name, address((16 + i).toString(16))])) }))
const missing = join(dir, 'missing.json')

/** Each service's problems for the same situation, its prefix written as `X`. */
function problems(env: (prefix: 'RELAYER' | 'INDEXER') => Env, manifestFlag?: string): string[][] {
  const relayerExtras = { RELAYER_PK: `0x${'11'.repeat(32)}`, RELAYER_BROKER: address('aa') }
  const indexerExtras = { INDEXER_ADDRESSES: [1, 2, 3, 4].map((i) => address(`0${i}`)).join(','), INDEXER_DEPLOYED_AT: '0' }
  const read = [
    () => readRelayerConfig({ ...relayerExtras, ...env('RELAYER') }, { manifestPath: manifestFlag }),
    () => readIndexerConfig({ ...indexerExtras, ...env('INDEXER') }, { manifestPath: manifestFlag }),
    () => readMcpConfig({ ...indexerExtras, ...env('INDEXER') }, { manifestPath: manifestFlag }),
  ]
  return read.map((run) => {
    try {
      run()
      return []
    } catch (error) {
      return (error as Error).message.split('\n').slice(1).map((line) => line.replace(/^ {2}- /, '').replace(/\b(RELAYER|INDEXER)_/g, 'X_'))
    }
  })
}

test('the same situation gives the same problems in the relayer, the indexer and the MCP server', () => {
  const cases: [(prefix: string) => Env, string[], string?][] = [
    [() => ({}), ['X_CHAIN_ID is required (421614 or 46630, or a devnet chain id), or give a manifest']],
    [(p) => ({ [`${p}_CHAIN_ID`]: '31337' }), ['X_RPC_URL is required: chain 31337 has no public RPC built in']],
    [(p) => ({ [`${p}_MANIFEST`]: manifestPath, [`${p}_CHAIN_ID`]: '46630', [`${p}_RPC_URL`]: 'file:///x' }), ["X_CHAIN_ID 46630 does not match the manifest's chainId 31337", 'X_RPC_URL must be an http(s) or ws(s) URL']],
    [(p) => ({ [`${p}_MANIFEST`]: missing }), [`X_MANIFEST: cannot read manifest ${missing}: ENOENT`]],
    [() => ({}), [`--manifest: cannot read manifest ${missing}: ENOENT`], missing],
    [(p) => ({ [`${p}_CHAIN_ID`]: 'one' }), ['X_CHAIN_ID must be an integer from 1 to 9007199254740991 (got "one")']],
  ]
  for (const [env, expected, flag] of cases) expect(problems(env, flag)).toEqual([expected, expected, expected])
})

test('a manifest gives the chain and its RPC; variables and values given in code win over it', () => {
  const resolve = (env: Env, options: { chainId?: number; rpcUrl?: string } = {}) => {
    const read = createEnvReader(env)
    const { chainId, rpcUrl, manifestNamed } = resolveChain(read, { prefix: 'INDEXER', ...options })
    read.done('test')
    return { chainId, rpcUrl, manifestNamed }
  }
  expect(resolve({ INDEXER_MANIFEST: manifestPath })).toEqual({ chainId: 31337, rpcUrl: 'http://127.0.0.1:8545', manifestNamed: true })
  expect(resolve({ INDEXER_MANIFEST: manifestPath, INDEXER_RPC_URL: 'https://node.example' })).toEqual({ chainId: 31337, rpcUrl: 'https://node.example', manifestNamed: true })
  expect(resolve({ INDEXER_CHAIN_ID: '421614' })).toEqual({ chainId: 421614, rpcUrl: 'https://sepolia-rollup.arbitrum.io/rpc', manifestNamed: false })
  expect(resolve({ INDEXER_CHAIN_ID: '421614' }, { rpcUrl: 'http://127.0.0.1:1', chainId: 46630 })).toEqual({ chainId: 46630, rpcUrl: 'http://127.0.0.1:1', manifestNamed: false })
})
