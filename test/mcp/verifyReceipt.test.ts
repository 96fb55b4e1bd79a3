import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { keccak256, stringToHex } from 'viem'
import { type Devnet, seededLienId, startDevnet } from '../../src/devnet/index.ts'
import { McpError, type Receipt, verifyReceipt } from '../../src/mcp/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { connectMcp, runCli, removeTempDirs, tempDir, writeJson, writeManifest } from './helpers.ts'

const zero = `0x${'0'.repeat(64)}`
const one = `0x${'1'.padStart(64, '0')}`

let first: Devnet
/** A second node on the same chain: an anvil forking the first. */
let fork: Devnet
/** A node on another chain (46630) with the same contracts at the same addresses and the same seeded lien. */
let otherChain: Devnet
let encumbered: { encumbered: boolean; receipt: Receipt }
let notEncumbered: { encumbered: boolean; receipt: Receipt }
const dir = tempDir()

const file = (name: string, json: unknown) => writeJson(dir, name, json)

beforeAll(async () => {
  ;[first, otherChain] = await Promise.all([startDevnet(), startDevnet({ chainId: 46630 })])
  const mcp = await connectMcp(['--manifest', writeManifest(dir, first.manifest)])
  try {
    const ask = async (lienId: string) =>
      (await mcp.client.callTool({ name: 'is_encumbered', arguments: { lienId } })).structuredContent as typeof encumbered
    encumbered = await ask(seededLienId)
    notEncumbered = await ask(keccak256(stringToHex('verify test: unknown lien')))
  } finally {
    await mcp.close()
  }
  // The first chain moves on after the receipts; the fork starts from its head.
  await first.testClient.mine({ blocks: 3 })
  fork = await startDevnet({ forkUrl: first.rpcUrl, deploy: false, chainId: first.chainId })
}, 120_000)

afterAll(async () => {
  removeTempDirs()
  await Promise.all([first?.stop(), fork?.stop(), otherChain?.stop()])
})

describe('verifyReceipt (library)', () => {
  test('the fork is a different node on the same chain, with the receipt\'s block', async () => {
    expect(fork.rpcUrl).not.toBe(first.rpcUrl)
    expect(await fork.publicClient.getChainId()).toBe(421614)
    const block = await fork.publicClient.getBlock({ blockNumber: BigInt(encumbered.receipt.blockNumber) })
    expect(block.hash).toBe(encumbered.receipt.blockHash as `0x${string}`)
  })

  test('receipts from the MCP tool verify on the fork', async () => {
    expect(encumbered.encumbered).toBe(true)
    expect(notEncumbered.encumbered).toBe(false)
    const { receipt } = encumbered
    expect(await verifyReceipt(receipt, fork.rpcUrl)).toEqual({
      match: true,
      verdict: 'match',
      message: `receipt verified against ${new URL(fork.rpcUrl).origin}: chain 421614, block ${receipt.blockNumber} (${receipt.blockHash}): isEncumbered(${seededLienId}) = true`,
      checks: {
        chainId: { status: 'match', expected: '421614', actual: '421614' },
        blockHash: { status: 'match', expected: receipt.blockHash, actual: receipt.blockHash },
        result: { status: 'match', expected: one, actual: one },
        answer: {
          status: 'match',
          expected: `isEncumbered(${seededLienId}) on ${receipt.registry} = true`,
          actual: `isEncumbered(${seededLienId}) on ${receipt.registry} = true`,
        },
      },
    })
    expect((await verifyReceipt(notEncumbered.receipt, fork.rpcUrl)).match).toBe(true)
    expect((await verifyReceipt(encumbered.receipt, first.rpcUrl)).match).toBe(true)
  })

  test('a tampered result fails: the replayed result and the decoded answer differ', async () => {
    const tampered = { ...notEncumbered.receipt, result: one }
    const outcome = await verifyReceipt(tampered, fork.rpcUrl)
    expect(outcome.match).toBe(false)
    expect(outcome.verdict).toBe('mismatch')
    expect(outcome.checks.chainId.status).toBe('match')
    expect(outcome.checks.blockHash.status).toBe('match')
    expect(outcome.checks.result).toEqual({ status: 'mismatch', expected: one, actual: zero })
    const lienId = notEncumbered.receipt.decoded.lienId
    expect(outcome.checks.answer).toEqual({
      status: 'mismatch',
      expected: `isEncumbered(${lienId}) on ${tampered.registry} = false`,
      actual: `isEncumbered(${lienId}) on ${tampered.registry} = true`,
    })
    expect(outcome.message).toBe(
      `receipt does not verify against ${new URL(fork.rpcUrl).origin}: result (receipt ${one}, node ${zero}); decoded answer (receipt says isEncumbered(${lienId}) on ${tampered.registry} = false; its request and result say isEncumbered(${lienId}) on ${tampered.registry} = true) differ`,
    )
  })

  test('a result and answer tampered together still fail on the replayed result', async () => {
    const { receipt } = notEncumbered
    const tampered = { ...receipt, result: one, decoded: { ...receipt.decoded, encumbered: true } }
    const outcome = await verifyReceipt(tampered, fork.rpcUrl)
    expect(outcome.match).toBe(false)
    expect(outcome.checks.result).toEqual({ status: 'mismatch', expected: one, actual: zero })
    expect(outcome.checks.answer.status).toBe('match')
  })

  test('an edited decoded answer fails even though the raw result replays', async () => {
    const { receipt } = encumbered
    const outcome = await verifyReceipt({ ...receipt, decoded: { ...receipt.decoded, encumbered: false } }, fork.rpcUrl)
    expect(outcome.match).toBe(false)
    expect(outcome.checks.result.status).toBe('match')
    expect(outcome.checks.answer.status).toBe('mismatch')
  })

  test('a request for another lien than the decoded one fails', async () => {
    const { receipt } = notEncumbered
    const outcome = await verifyReceipt({ ...receipt, request: encumbered.receipt.request }, fork.rpcUrl)
    expect(outcome.match).toBe(false)
    expect(outcome.checks.answer).toEqual({
      status: 'mismatch',
      expected: `isEncumbered(${receipt.decoded.lienId}) on ${receipt.registry} = false`,
      actual: `isEncumbered(${seededLienId}) on ${receipt.registry} = false`,
    })
  })

  test('a tampered block hash fails on the block hash and is not replayed', async () => {
    const { receipt } = encumbered
    const forged = `0x${'ab'.repeat(32)}`
    const outcome = await verifyReceipt({ ...receipt, blockHash: forged }, fork.rpcUrl)
    expect(outcome.match).toBe(false)
    expect(outcome.checks.blockHash).toEqual({ status: 'mismatch', expected: forged, actual: receipt.blockHash })
    expect(outcome.checks.result).toEqual({ status: 'not-checked', expected: one, actual: null })
  })

  test('a node on another chain fails on the chain id and the block hash, even with the same contracts and lien', async () => {
    const { receipt } = encumbered
    expect(otherChain.manifest.contracts.registry).toBe(first.manifest.contracts.registry)
    const blockNumber = BigInt(receipt.blockNumber)
    const otherHash = (await otherChain.publicClient.getBlock({ blockNumber }).catch(() => null))?.hash ?? null
    expect(otherHash).not.toBe(receipt.blockHash as `0x${string}`)
    const outcome = await verifyReceipt(receipt, otherChain.rpcUrl)
    expect(outcome).toEqual({
      match: false,
      verdict: 'mismatch',
      message: `receipt does not verify against ${new URL(otherChain.rpcUrl).origin}: chain id (receipt 421614, node 46630); block hash of block ${blockNumber} (receipt ${receipt.blockHash}, node ${otherHash ?? 'has no such block'}) differ`,
      checks: {
        chainId: { status: 'mismatch', expected: '421614', actual: '46630' },
        blockHash: { status: 'mismatch', expected: receipt.blockHash, actual: otherHash },
        result: { status: 'not-checked', expected: one, actual: null },
        answer: outcome.checks.answer,
      },
    })
    expect(outcome.checks.answer.status).toBe('match')
  })

  test('a block the node does not have is a block hash mismatch', async () => {
    const { receipt } = encumbered
    const outcome = await verifyReceipt({ ...receipt, blockNumber: '100000' }, fork.rpcUrl)
    expect(outcome.checks.blockHash).toEqual({ status: 'mismatch', expected: receipt.blockHash, actual: null })
  })

  test('an unreachable RPC and a malformed receipt are errors, not verdicts', async () => {
    const port = await freePort()
    const unreachable = await verifyReceipt(encumbered.receipt, `http://127.0.0.1:${port}/key`).catch((error: unknown) => error)
    expect(unreachable).toBeInstanceOf(McpError)
    expect((unreachable as McpError).code).toBe('RPC_UNREACHABLE')
    expect((unreachable as McpError).message).toStartWith(`cannot reach the RPC at http://127.0.0.1:${port} (reading eth_chainId): `)

    const malformed = await verifyReceipt({ ...encumbered.receipt, blockHash: '0x12' }, fork.rpcUrl).catch((error: unknown) => error)
    expect(malformed).toBeInstanceOf(McpError)
    expect((malformed as McpError).code).toBe('INVALID_RECEIPT')
    expect((malformed as McpError).message).toBe('not an is_encumbered receipt: blockHash is invalid (expected /^0x[0-9a-fA-F]{64}$/)')
  })
})

describe('order-relay verify-receipt FILE --rpc URL', () => {
  test('exit 0 on a match, for a bare receipt or a whole tool answer', async () => {
    const bare = await runCli(['verify-receipt', file('receipt.json', encumbered.receipt), '--rpc', fork.rpcUrl])
    expect(bare.stderr).toBe('')
    expect(bare.code).toBe(0)
    const { receipt } = encumbered
    expect(bare.stdout).toBe(
      [
        `lien ${seededLienId}: encumbered true at block ${receipt.blockNumber} on chain 421614 (registry ${receipt.registry})`,
        '  chain id   match       421614',
        `  block hash match       ${receipt.blockHash}`,
        `  result     match       ${one}`,
        `  answer     match       isEncumbered(${seededLienId}) on ${receipt.registry} = true`,
        `receipt verified against ${new URL(fork.rpcUrl).origin}: chain 421614, block ${receipt.blockNumber} (${receipt.blockHash}): isEncumbered(${seededLienId}) = true`,
        '',
      ].join('\n'),
    )
    const whole = await runCli(['verify-receipt', file('answer.json', notEncumbered), '--rpc', fork.rpcUrl, '--json'])
    expect(whole.code).toBe(0)
    expect(JSON.parse(whole.stdout)).toEqual(await verifyReceipt(notEncumbered.receipt, fork.rpcUrl))
  }, 20_000)

  test('exit 1 on a tampered receipt, another chain, an unreachable RPC or an answer that contradicts its receipt', async () => {
    const tampered = await runCli(['verify-receipt', file('tampered.json', { ...notEncumbered.receipt, result: one }), '--rpc', fork.rpcUrl])
    expect(tampered.code).toBe(1)
    expect(tampered.stdout).toContain(`  result     mismatch    receipt says ${one}, node says ${zero}\n`)
    const { lienId, encumbered: claimed } = notEncumbered.receipt.decoded
    const registry = notEncumbered.receipt.registry
    expect(tampered.stdout).toContain(
      `  answer     mismatch    receipt says isEncumbered(${lienId}) on ${registry} = ${claimed}, its request and result say isEncumbered(${lienId}) on ${registry} = ${!claimed}\n`,
    )
    expect(tampered.stdout).toContain('receipt does not verify against')

    const other = await runCli(['verify-receipt', file('receipt.json', encumbered.receipt), '--rpc', otherChain.rpcUrl])
    expect(other.code).toBe(1)
    expect(other.stdout).toContain('  chain id   mismatch    receipt says 421614, node says 46630\n')

    const port = await freePort()
    const unreachable = await runCli(['verify-receipt', file('receipt.json', encumbered.receipt), '--rpc', `http://127.0.0.1:${port}`])
    expect(unreachable.code).toBe(1)
    expect(unreachable.stdout).toBe('')
    expect(unreachable.stderr).toStartWith(`order-relay verify-receipt: RPC_UNREACHABLE: cannot reach the RPC at http://127.0.0.1:${port} (reading eth_chainId): `)


    const disagreeing = await runCli(['verify-receipt', file('disagreeing.json', { ...encumbered, encumbered: false }), '--rpc', fork.rpcUrl])
    expect(disagreeing.code).toBe(1)
    expect(disagreeing.stderr).toContain('says encumbered false but its receipt says true')
  }, 30_000)

  test('exit 2 on usage errors', async () => {
    const path = file('receipt.json', encumbered.receipt)
    for (const args of [[], [path], ['--rpc', fork.rpcUrl], [path, path, '--rpc', fork.rpcUrl], [path, '--rpc', 'ftp://x'], [path, '--rpc', fork.rpcUrl, '--bogus']]) {
      const run = await runCli(['verify-receipt', ...args])
      expect(run.code).toBe(2)
      expect(run.stdout).toBe('')
      expect(run.stderr).toContain('Usage: order-relay verify-receipt FILE --rpc URL [options]')
    }
    // --help names FILE as an argument, not as an option.
    const help = (await runCli(['verify-receipt', '--help'])).stdout
    expect(help).toContain('Usage: order-relay verify-receipt FILE --rpc URL [options]\n\nArguments:\n  FILE ')
    expect(help.slice(help.indexOf('Options:'))).not.toContain('FILE')
    // A file that is missing, not JSON or not a receipt is a usage error too: exit 1 only ever means "did not verify".
    const missing = await runCli(['verify-receipt', join(dir, 'nope.json'), '--rpc', fork.rpcUrl])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toStartWith(`order-relay verify-receipt: cannot read ${join(dir, 'nope.json')}: ENOENT\nUsage: order-relay verify-receipt FILE`)
    writeFileSync(join(dir, 'notJson.json'), '{"receipt": ')
    const notJson = await runCli(['verify-receipt', join(dir, 'notJson.json'), '--rpc', fork.rpcUrl])
    expect(notJson.code).toBe(2)
    expect(notJson.stderr).toStartWith(`order-relay verify-receipt: ${join(dir, 'notJson.json')} is not valid JSON\n`)
    const notReceipt = await runCli(['verify-receipt', file('manifest.json', first.manifest), '--rpc', fork.rpcUrl])
    expect(notReceipt.code).toBe(2)
    expect(notReceipt.stderr).toStartWith(`order-relay verify-receipt: ${join(dir, 'manifest.json')}: not an is_encumbered receipt: registry is missing\n`)
    const noRpc = await runCli(['verify-receipt', path])
    expect(noRpc.stderr).toStartWith('order-relay verify-receipt: --rpc URL is required: the node to replay the receipt on\n')
  }, 30_000)
})
