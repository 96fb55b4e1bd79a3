import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { getAddress, type Hex, keccak256, stringToHex, toFunctionSelector } from 'viem'
import { type Devnet, seededLienId, startDevnet, usdc } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { connectMcp, fundAndRepay, recordLien, removeTempDirs, tempDir, writeManifest } from './helpers.ts'

const releasedLienId = keccak256(stringToHex('mcp test: released lien'))
const expiredLienId = keccak256(stringToHex('mcp test: expired lien'))
const unknownLienId = keccak256(stringToHex('mcp test: never proposed'))

let devnet: Devnet
let mcp: Awaited<ReturnType<typeof connectMcp>>
const protocolErrors: Error[] = []
/** Blocks at which the released and the expired lien were still encumbered. */
let releasedWasRecordedAt: bigint
let expiredWasRecordedAt: bigint

/** The answer `is_encumbered` must give for `lienId` at `blockNumber`, built independently of src/mcp. */
async function expectedAnswer(lienId: Hex, blockNumber: bigint, encumbered: boolean) {
  const block = await devnet.publicClient.getBlock({ blockNumber })
  const registry = getAddress(devnet.manifest.contracts.registry)
  const result = `0x${encumbered ? '1'.padStart(64, '0') : '0'.repeat(64)}`
  return {
    encumbered,
    receipt: {
      chainId: 421614,
      registry,
      blockNumber: blockNumber.toString(),
      blockHash: block.hash,
      request: { to: registry, data: `${toFunctionSelector('isEncumbered(bytes32)')}${lienId.slice(2)}` },
      result,
      decoded: { function: 'isEncumbered(bytes32)', lienId, encumbered },
    },
  }
}

async function call(args: Record<string, unknown>) {
  return mcp.client.callTool({ name: 'is_encumbered', arguments: args })
}

/** Calls the tool and checks the structured answer and that the text content is the same JSON. */
async function answer(args: Record<string, unknown>) {
  const result = await call(args)
  expect(result.isError).toBeUndefined()
  const content = result.content as { type: string; text: string }[]
  expect(content).toHaveLength(1)
  expect(content[0]?.type).toBe('text')
  expect(JSON.parse(content[0]?.text ?? '')).toEqual(result.structuredContent)
  return result.structuredContent
}

async function toolError(args: Record<string, unknown>) {
  const result = await call(args)
  expect(result.isError).toBe(true)
  expect(result.structuredContent).toBeUndefined()
  return (result.content as { text: string }[])[0]?.text
}

beforeAll(async () => {
  devnet = await startDevnet()
  const now = (await devnet.publicClient.getBlock()).timestamp

  // Released: proposed, confirmed (recorded), funded from the pool, repaid in full.
  releasedWasRecordedAt = (await recordLien(devnet, releasedLienId, now + 365n * 24n * 3600n)).blockNumber
  await fundAndRepay(devnet, releasedLienId, 250n * usdc)

  // Expired: recorded until one minute from now, then two minutes pass.
  expiredWasRecordedAt = (await recordLien(devnet, expiredLienId, now + 60n)).blockNumber
  await devnet.testClient.increaseTime({ seconds: 120 })
  await devnet.testClient.mine({ blocks: 1 })

  mcp = await connectMcp(['--manifest', writeManifest(tempDir(), devnet.manifest)])
  mcp.client.onerror = (error) => protocolErrors.push(error)
}, 120_000)

afterAll(async () => {
  removeTempDirs()
  await mcp?.close()
  await devnet?.stop()
})

describe('order-relay mcp over stdio, as an agent runs it', () => {
  test('lists one tool, is_encumbered, with input and output schemas', async () => {
    const { tools } = await mcp.client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['is_encumbered'])
    const tool = tools[0]
    expect(tool?.annotations).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: true })
    expect(tool?.inputSchema).toEqual({
      type: 'object',
      properties: {
        lienId: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$', description: 'The lien id (bytes32): 0x followed by 64 hex digits.' },
        blockNumber: {
          anyOf: [
            { type: 'string', pattern: '^(0|[1-9][0-9]{0,18})$', description: 'A block number as a decimal string.' },
            { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
          ],
          description: 'The block to read at (decimal string or integer); the latest block when absent.',
        },
      },
      required: ['lienId'],
      additionalProperties: false,
    })
    expect(tool?.outputSchema?.type).toBe('object')
    expect(tool?.outputSchema?.required).toEqual(['encumbered', 'receipt'])
    const receiptSchema = (tool?.outputSchema?.properties as Record<string, { required: string[] }>).receipt
    expect(receiptSchema?.required).toEqual(['chainId', 'registry', 'blockNumber', 'blockHash', 'request', 'result', 'decoded'])
  })

  test('the seeded recorded lien is encumbered at the latest block', async () => {
    const latest = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
    expect(await answer({ lienId: seededLienId })).toEqual(await expectedAnswer(seededLienId, latest, true))
  })

  test('a lien repaid in full is released: not encumbered now, encumbered at the block it was recorded', async () => {
    const latest = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
    expect(await answer({ lienId: releasedLienId })).toEqual(await expectedAnswer(releasedLienId, latest, false))
    expect(await answer({ lienId: releasedLienId, blockNumber: releasedWasRecordedAt.toString() })).toEqual(
      await expectedAnswer(releasedLienId, releasedWasRecordedAt, true),
    )
  })

  test('a lien past its expiresAt is not encumbered; at a block before expiry it was', async () => {
    const latest = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
    expect(await answer({ lienId: expiredLienId })).toEqual(await expectedAnswer(expiredLienId, latest, false))
    expect(await answer({ lienId: expiredLienId, blockNumber: Number(expiredWasRecordedAt) })).toEqual(
      await expectedAnswer(expiredLienId, expiredWasRecordedAt, true),
    )
  })

  test('an unknown lien is not encumbered (an upper-case lienId is read the same)', async () => {
    const latest = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
    expect(await answer({ lienId: unknownLienId })).toEqual(await expectedAnswer(unknownLienId, latest, false))
    expect(await answer({ lienId: `0x${unknownLienId.slice(2).toUpperCase()}` })).toEqual(await expectedAnswer(unknownLienId, latest, false))
  })

  test('bad input is a tool error with a clear message, and the server keeps serving', async () => {
    const latest = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
    expect(await toolError({ lienId: '0x1234' })).toBe('INVALID_INPUT: lienId must be 32 bytes of hex: 0x followed by 64 hex digits')
    expect(await toolError({})).toBe('INVALID_INPUT: lienId is required')
    expect(await toolError({ lienId: seededLienId, blockNumber: 'latest' })).toBe(
      'INVALID_INPUT: blockNumber must be a decimal string of at most 19 digits, without sign or leading zero',
    )
    expect(await toolError({ lienId: seededLienId, blockNumber: -1 })).toBe('INVALID_INPUT: blockNumber must not be negative')
    expect(await toolError({ lienId: seededLienId, blockNumber: 1.5 })).toBe('INVALID_INPUT: blockNumber must be a whole number')
    expect(await toolError({ lienId: seededLienId, blocknumber: 3 })).toBe(
      'INVALID_INPUT: unexpected argument "blocknumber": only lienId and blockNumber are accepted',
    )
    expect(await toolError({ lienId: seededLienId, blockNumber: (latest + 1000n).toString() })).toBe(
      `FUTURE_BLOCK: block ${latest + 1000n} is in the future: the chain's latest block is ${latest}`,
    )
    expect(await toolError({ lienId: seededLienId, blockNumber: '9999999999999999999' })).toBe(
      `FUTURE_BLOCK: block 9999999999999999999 is in the future: the chain's latest block is ${latest}`,
    )
    expect(await toolError({ lienId: seededLienId, blockNumber: 0 })).toBe(
      `NO_REGISTRY: no LienRegistry answers at ${getAddress(devnet.manifest.contracts.registry)} on chain 421614 at block 0 (the call returned 0x): check the registry address and that it was deployed by then`,
    )
    const unknownTool = await mcp.client.callTool({ name: 'is_taken', arguments: {} })
    expect(unknownTool).toEqual({ isError: true, content: [{ type: 'text', text: 'UNKNOWN_TOOL: no tool "is_taken": the only tool is is_encumbered' }] })

    expect(await answer({ lienId: seededLienId })).toEqual(await expectedAnswer(seededLienId, latest, true))
    expect(mcp.stderr()).toContain(`FUTURE_BLOCK: block ${latest + 1000n} is in the future`)
  })

  test('nothing but the protocol reached stdout', () => {
    expect(protocolErrors).toEqual([])
    expect(mcp.stderr()).toStartWith(
      `order-relay mcp 0.1.0: is_encumbered on chain 421614, registry ${getAddress(devnet.manifest.contracts.registry)}, over stdio\n`,
    )
  })
})

describe('configuration from the indexer variables', () => {
  test('INDEXER_CHAIN_ID, INDEXER_RPC_URL and INDEXER_ADDRESSES (the registry first) serve the same answers', async () => {
    const { registry, inbox, pool, escrow } = devnet.manifest.contracts
    const server = await connectMcp([], {
      INDEXER_CHAIN_ID: '421614',
      INDEXER_RPC_URL: devnet.rpcUrl,
      INDEXER_ADDRESSES: [registry, inbox, pool, escrow].join(','),
    })
    try {
      const latest = await devnet.publicClient.getBlockNumber({ cacheTime: 0 })
      const result = await server.client.callTool({ name: 'is_encumbered', arguments: { lienId: seededLienId } })
      expect(result.structuredContent).toEqual(await expectedAnswer(seededLienId, latest, true))
    } finally {
      await server.close()
    }
  }, 20_000)

  test('an RPC serving another chain than configured is a tool error', async () => {
    const server = await connectMcp([], {
      INDEXER_CHAIN_ID: '46630',
      INDEXER_RPC_URL: devnet.rpcUrl,
      INDEXER_ADDRESSES: devnet.manifest.contracts.registry,
    })
    try {
      const result = await server.client.callTool({ name: 'is_encumbered', arguments: { lienId: seededLienId } })
      expect(result).toEqual({
        isError: true,
        content: [{ type: 'text', text: 'WRONG_CHAIN: the RPC serves chain 421614, but the configuration names chain 46630' }],
      })
    } finally {
      await server.close()
    }
  }, 20_000)

  test('an unreachable RPC is a tool error naming the node by its origin; the server stays up', async () => {
    const port = await freePort()
    const manifest = { ...devnet.manifest, rpcUrl: `http://127.0.0.1:${port}/v3/secret-api-key` }
    const server = await connectMcp(['--manifest', writeManifest(tempDir(), manifest)])
    try {
      const result = await server.client.callTool({ name: 'is_encumbered', arguments: { lienId: seededLienId } })
      expect(result.isError).toBe(true)
      const text = (result.content as { text: string }[])[0]?.text ?? ''
      expect(text).toStartWith(`RPC_UNREACHABLE: cannot reach the RPC at http://127.0.0.1:${port} (reading eth_chainId): `)
      expect(text).not.toContain('secret-api-key')
      expect((await server.client.listTools()).tools.map((tool) => tool.name)).toEqual(['is_encumbered'])
    } finally {
      await server.close()
    }
  }, 20_000)
})
