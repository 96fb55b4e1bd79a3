// Messages that help: usage and configuration errors exit 2 in every command, and
// `order` prints the fix of the revert the relayer decoded, not SPEC's generic line.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main } from '../../src/cli/index.ts'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { revertFixes } from '../../src/wire/index.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-messages-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs the CLI in this process with `env` only; resolves with its exit code and output. */
async function cli(args: string[], env: Record<string, string> = {}) {
  const out: string[] = []
  const err: string[] = []
  const code = await main(args, { env, out: (line) => out.push(line), err: (line) => err.push(line), signal: new AbortController().signal })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

describe('usage and configuration errors exit 2', () => {
  const empty = join(dir, 'empty.json')
  writeFileSync(empty, '{}')
  const notJson = join(dir, 'not.json')
  writeFileSync(notJson, '{')
  const key = { DEPLOYER_PK: devnetAccounts.spare.privateKey }

  // [command line, environment, the first line of stderr]
  const cases: [string[], Record<string, string>, string][] = [
    [['order', '--manifest', '/nonexistent'], {}, 'order-relay order: cannot read manifest /nonexistent: ENOENT (start one with `'],
    [['order', '--manifest', empty], {}, `order-relay order: manifest ${empty} is invalid at chainId`],
    [['order', '--relayer', 'notaurl'], {}, 'order-relay order: --relayer must be an http(s) URL'],
    [['order', '--rpc', 'ftp://node'], {}, 'order-relay order: --rpc must be an http(s) URL'],
    [['order', '--fee-bps', 'x'], {}, 'order-relay order: --fee-bps must be a whole decimal number'],
    [['verify-receipt', '/nonexistent', '--rpc', 'http://127.0.0.1:1'], {}, 'order-relay verify-receipt: cannot read /nonexistent: ENOENT'],
    [['verify-receipt', notJson, '--rpc', 'http://127.0.0.1:1'], {}, `order-relay verify-receipt: ${notJson} is not valid JSON`],
    [['verify-receipt', empty, '--rpc', 'http://127.0.0.1:1'], {}, `order-relay verify-receipt: ${empty}: not an is_encumbered receipt: chainId is missing`],
    [['relayer', '--manifest', '/nonexistent'], {}, 'order-relay relayer: invalid relayer configuration:'],
    [['indexer', '--manifest', '/nonexistent'], {}, 'order-relay indexer: invalid indexer configuration:'],
    [['serve', '--manifest', '/nonexistent'], {}, 'order-relay serve: invalid relayer configuration:'],
    [['mcp', '--manifest', '/nonexistent'], {}, 'order-relay mcp: invalid MCP server configuration:'],
    [['deploy'], {}, 'order-relay deploy: invalid deploy configuration:'],
    [['deploy', '--rpc', 'notaurl'], key, 'order-relay deploy: --rpc must be an http(s) URL'],
    [['devnet', '--port-base', 'x'], {}, 'order-relay devnet: --port-base must be a port number (1-65533)'],
    // A manifest path that cannot be written is refused before anvil starts or a deployment spends gas.
    [['devnet', '--manifest', `${empty}/m.json`], {}, `order-relay devnet: cannot write the manifest to ${empty}/m.json (part of the path is a file, not a folder): pass --manifest with a writable path`],
    [['deploy', '--rpc', 'http://127.0.0.1:1', '--manifest', `${empty}/m.json`], key, `order-relay deploy: cannot write the manifest to ${empty}/m.json (part of the path is a file, not a folder)`],
  ]
  test.each(cases)('%p', async (args, env, first) => {
    const run = await cli(args, env)
    expect(run.code).toBe(2)
    expect(run.err.split('\n')[0]).toStartWith(first)
    expect(run.out).toBe('')
  })

  test('every command: an unknown flag exits 2 with its usage line', async () => {
    for (const name of ['serve', 'relayer', 'indexer', 'devnet', 'mcp', 'deploy', 'order', 'verify-receipt']) {
      const run = await cli([name, '--bogus'])
      expect({ name, code: run.code }).toEqual({ name, code: 2 })
      expect(run.err).toContain(`Usage: order-relay ${name} `)
    }
  })
})

describe('order: the fix line fits the decoded revert', () => {
  let devnet: Devnet
  let relayer: TestRelayer
  let manifest: string
  beforeAll(async () => {
    devnet = await startDevnet()
    relayer = await startTestRelayer(devnet)
    manifest = join(dir, 'manifest.json')
    writeFileSync(manifest, JSON.stringify({ ...devnet.manifest, relayerUrl: relayer.url }))
  }, 60_000)
  afterAll(async () => {
    await relayer?.stop()
    await devnet?.stop()
  })
  const fixOf = (revert: string) => revertFixes.find((entry) => entry.revert === revert)!.fix

  test('FeeTooHigh(): feeBps over 10000', async () => {
    const run = await cli(['order', '--manifest', manifest, '--fee-bps', '10001'])
    expect(run.code).toBe(1)
    expect(run.err.split('\n').slice(1)).toEqual(['WOULD_REVERT (HTTP 422): would revert: FeeTooHigh()', `fix: ${fixOf('FeeTooHigh()')}`])
  })

  test('AllocationSoldOut(vaultId=7): an unconfigured vault', async () => {
    const run = await cli(['order', '--manifest', manifest, '--vault', '7'])
    expect(run.code).toBe(1)
    expect(run.err.split('\n').slice(1)).toEqual([
      'WOULD_REVERT (HTTP 422): would revert: AllocationSoldOut(vaultId=7)',
      `fix: ${fixOf('AllocationSoldOut(vaultId)')}`,
    ])
  })

  test('a settled order still exits 0 with the success body', async () => {
    const run = await cli(['order', '--manifest', manifest])
    expect(run.code).toBe(0)
    expect(JSON.parse(run.out).ok).toBe(true)
  })
})
