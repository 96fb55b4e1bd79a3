// Which logs of an eth_getLogs answer a range decodes: the live ones, in chain order,
// the newest `keep` of them; a log of the range's last block from another fork stops
// the range. Answers made up here: a node that answers out of order, or with removed
// and pending logs, is not something anvil does on request.
import { expect, test } from 'bun:test'
import { type Hash, type Hex, numberToHex, type RpcLog } from 'viem'
import { ChainMovedError } from '../../src/indexer/sync/chainMoved.ts'
import { keptLogs } from '../../src/indexer/sync/keptLogs.ts'

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hash
const end = { number: 30n, hash: hash(30) }

function rpcLog(block: number, index: number, extra: Partial<RpcLog> = {}): RpcLog {
  return {
    address: '0x0000000000000000000000000000000000000001',
    topics: [hash(7)],
    data: '0x' as Hex,
    blockHash: hash(block),
    blockNumber: numberToHex(block),
    logIndex: numberToHex(index),
    transactionHash: hash(1_000 + block * 10 + index),
    transactionIndex: '0x0',
    removed: false,
    ...extra,
  }
}

const positions = (logs: { blockNumber: bigint | null; logIndex: number | null }[]) => logs.map((log) => `${log.blockNumber}:${log.logIndex}`)

test('every live log, parsed as viem formats them; removed and pending logs are left out', () => {
  const answer = [rpcLog(10, 0), rpcLog(10, 1, { removed: true }), rpcLog(11, 0, { blockNumber: null }), rpcLog(12, 3), rpcLog(30, 0)]
  const { logs, skipped } = keptLogs(answer, end)
  expect(skipped).toBe(0)
  expect(positions(logs)).toEqual(['10:0', '12:3', '30:0'])
  expect(logs[1]).toEqual({ address: answer[3]!.address, topics: answer[3]!.topics, data: '0x', blockNumber: 12n, logIndex: 3, transactionHash: answer[3]!.transactionHash as Hash, blockHash: hash(12) })
})

test('over `keep`: the newest, counted in chain order even when the node answers out of order', () => {
  const ordered = [rpcLog(10, 0), rpcLog(10, 1), rpcLog(11, 0), rpcLog(12, 0), rpcLog(12, 1)]
  expect(positions(keptLogs(ordered, end, 2).logs)).toEqual(['12:0', '12:1'])
  const shuffled = [ordered[3]!, ordered[0]!, ordered[4]!, ordered[2]!, ordered[1]!]
  const { logs, skipped } = keptLogs(shuffled, end, 3)
  expect(skipped).toBe(2)
  expect(positions(logs)).toEqual(['11:0', '12:0', '12:1'])
})

test("a log of the range's last block with another block hash: the chain moved", () => {
  expect(() => keptLogs([rpcLog(10, 0), rpcLog(30, 0, { blockHash: hash(99) })], end)).toThrow(ChainMovedError)
})
