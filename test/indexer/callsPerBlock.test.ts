import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { proposeLien } from './registryFlow.ts'
import { type RpcProxy, startRpcProxy } from './rpcProxy.ts'
import { startTestIndexer, type TestIndexer } from './startTestIndexer.ts'

let devnet: Devnet
let proxy: RpcProxy
let indexer: TestIndexer

beforeAll(async () => {
  devnet = await startDevnet()
  proxy = await startRpcProxy(devnet.rpcUrl)
  indexer = await startTestIndexer(devnet, { rpcUrl: proxy.url })
  await indexer.sync.syncOnce()
})

afterAll(async () => {
  await indexer?.stop()
  proxy?.stop()
  await devnet?.stop()
})

/** The RPC methods one tick asks for. */
async function tick() {
  proxy.methods.length = 0
  await indexer.sync.syncOnce()
  return [...proxy.methods]
}

test('following the head: one header read a tick, plus one eth_getLogs when a block came (no header per block)', async () => {
  expect(await tick()).toEqual(['eth_getBlockByNumber'])

  // One new block (with an event): the head's parentHash proves it continues the checkpoint.
  const proposed = await proposeLien(devnet, 'one block')
  expect(await tick()).toEqual(['eth_getBlockByNumber', 'eth_getLogs'])
  expect(indexer.sync.snapshot().events.at(-1)?.transactionHash).toBe(proposed.receipt.transactionHash)

  // Several new blocks: one more header read, of the checkpoint, whatever their number.
  await devnet.testClient.mine({ blocks: 40 })
  expect(await tick()).toEqual(['eth_getBlockByNumber', 'eth_getBlockByNumber', 'eth_getLogs'])
  expect(indexer.sync.snapshot().indexedThrough).toBe((await devnet.publicClient.getBlockNumber({ cacheTime: 0 })).toString())
})
