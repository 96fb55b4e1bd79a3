// A node that fails before anything is broadcast (the gas price or nonce read) is
// UPSTREAM_RPC, not a raw transport error reaching the pipeline's catch-all; and the
// next send asks the chain for the nonce again.
import { expect, test } from 'bun:test'
import { createPublicClient, custom, HttpRequestError, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { RelayError } from '../../src/relayer/index.ts'
import { openJournal } from '../../src/relayer/journal/index.ts'
import { createSubmitter } from '../../src/relayer/submitter/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'

const block = {
  number: '0x1', hash: `0x${'aa'.repeat(32)}`, parentHash: `0x${'bb'.repeat(32)}`, timestamp: '0x1', baseFeePerGas: '0x1',
  gasLimit: '0x1c9c380', gasUsed: '0x0', transactions: [], logsBloom: `0x${'00'.repeat(256)}`, miner: `0x${'00'.repeat(20)}`,
  difficulty: '0x0', extraData: '0x', nonce: '0x0000000000000000', size: '0x0', stateRoot: `0x${'00'.repeat(32)}`,
  receiptsRoot: `0x${'00'.repeat(32)}`, transactionsRoot: `0x${'00'.repeat(32)}`, sha3Uncles: `0x${'00'.repeat(32)}`, uncles: [], mixHash: `0x${'00'.repeat(32)}`,
}

test('a failed fee or nonce read is UPSTREAM_RPC and nothing is sent', async () => {
  const methods: string[] = []
  let down = true
  // A real viem client over a node we script: down first, then answering.
  const client = createPublicClient({ transport: custom({
    request: async ({ method }: { method: string }) => {
      methods.push(method)
      if (down) throw new HttpRequestError({ url: 'http://127.0.0.1:1', details: 'connection refused' })
      if (method === 'eth_getTransactionCount') return '0x7'
      if (method === 'eth_sendRawTransaction') return `0x${'00'.repeat(32)}`
      if (method === 'eth_getBlockByNumber') return block
      if (method === 'eth_maxPriorityFeePerGas') return '0x1'
      throw new Error(`unexpected ${method}`)
    },
  }, { retryCount: 0 }) }) as PublicClient
  const account = privateKeyToAccount(devnetAccounts.relayer.privateKey)
  const journal = openJournal(':memory:', { chainId: 421614, address: account.address })
  const submitter = createSubmitter({
    client,
    account,
    chainId: 421614,
    logger: createMemoryLogger(),
    journal,
    receiptPollMs: 10,
    describe: async () => undefined,
    wouldRevert: async () => undefined,
  })
  const tx = { to: devnetAccounts.spare.address, data: '0x' as const, gas: 21_000n }
  const failure = await submitter.send(tx).catch((error: unknown) => error)
  expect(failure).toBeInstanceOf(RelayError)
  expect((failure as RelayError).code).toBe('UPSTREAM_RPC')
  expect((failure as RelayError).message).toBe("the relayer's RPC failed before broadcast (reading gas price or nonce); retry or try another relayer")
  expect(methods).not.toContain('eth_sendRawTransaction')

  expect(journal.pendingCount()).toBe(0)

  down = false
  expect(await submitter.send(tx)).toEqual({ nonce: 7, hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
  expect(journal.slot(7)?.status).toBe('pending')
  expect(methods.filter((method) => method === 'eth_getTransactionCount')).toHaveLength(1)
  expect(methods.at(-1)).toBe('eth_sendRawTransaction')
})
