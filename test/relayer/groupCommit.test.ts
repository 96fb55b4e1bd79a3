// Group commit: orders queued together are signed at consecutive nonces, written to
// the journal in one commit (one fsync), then broadcast one after another in nonce
// order. The node is a script recording what it is sent.
import { expect, test } from 'bun:test'
import { createPublicClient, custom, type Hex, type PublicClient, parseTransaction } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { openJournal } from '../../src/relayer/journal/index.ts'
import { createSubmitter } from '../../src/relayer/submitter/index.ts'
import { createMemoryLogger } from '../../src/shared/index.ts'
import { keccakReady } from '../../src/wire/index.ts'

const block = {
  number: '0x1', hash: `0x${'aa'.repeat(32)}`, parentHash: `0x${'bb'.repeat(32)}`, timestamp: '0x1', baseFeePerGas: '0x1',
  gasLimit: '0x1c9c380', gasUsed: '0x0', transactions: [], logsBloom: `0x${'00'.repeat(256)}`, miner: `0x${'00'.repeat(20)}`,
  difficulty: '0x0', extraData: '0x', nonce: '0x0000000000000000', size: '0x0', stateRoot: `0x${'00'.repeat(32)}`,
  receiptsRoot: `0x${'00'.repeat(32)}`, transactionsRoot: `0x${'00'.repeat(32)}`, sha3Uncles: `0x${'00'.repeat(32)}`, uncles: [], mixHash: `0x${'00'.repeat(32)}`,
}

test('ten sends queued together: one journal commit of ten slots, then ten broadcasts in nonce order', async () => {
  await keccakReady
  const sent: Hex[] = []
  const client = createPublicClient({
    transport: custom({
      request: async ({ method, params }: { method: string; params: [Hex] }) => {
        if (method === 'eth_getTransactionCount') return '0x7'
        if (method === 'eth_getBlockByNumber') return block
        if (method === 'eth_maxPriorityFeePerGas') return '0x1'
        if (method === 'eth_sendRawTransaction') {
          sent.push(params[0])
          return `0x${'00'.repeat(32)}`
        }
        throw new Error(`unexpected ${method}`)
      },
    }, { retryCount: 0 }),
  }) as PublicClient
  const account = privateKeyToAccount(devnetAccounts.relayer.privateKey)
  const journal = openJournal(':memory:', { chainId: 421614, address: account.address })
  const commits: number[] = []
  const record = journal.record.bind(journal)
  journal.record = (slots) => {
    commits.push(slots.length)
    // Written before any of them is broadcast.
    expect(sent).toHaveLength(0)
    return record(slots)
  }
  const submitter = createSubmitter({ client, account, chainId: 421614, logger: createMemoryLogger(), journal, receiptPollMs: 10, describe: async () => undefined, wouldRevert: async () => undefined })
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => submitter.send({ to: devnetAccounts.spare.address, data: `0x0${i}`, gas: 50_000n, orderHash: `0x${String(i).repeat(64)}` })))
  expect(commits).toEqual([10])
  expect(results.map((each) => each.nonce)).toEqual([7, 8, 9, 10, 11, 12, 13, 14, 15, 16])
  expect(sent.map((raw) => parseTransaction(raw).nonce)).toEqual([7, 8, 9, 10, 11, 12, 13, 14, 15, 16])
  expect(sent.map((raw) => parseTransaction(raw).data as string)).toEqual(Array.from({ length: 10 }, (_, i) => `0x0${i}`))
  expect(journal.pending().map((slot) => [slot.nonce, slot.orderHash])).toEqual(Array.from({ length: 10 }, (_, i) => [7 + i, `0x${String(i).repeat(64)}`]))
  journal.close()
})
