// Start-up checks of the RPC: another chain refuses to start, a silent node warns.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { createRelayer, readRelayerConfig } from '../../src/relayer/index.ts'
import { createMemoryLogger, freePort } from '../../src/shared/index.ts'

let devnet: Devnet
beforeAll(async () => {
  devnet = await startDevnet()
})
afterAll(async () => {
  await devnet?.stop()
})

const configFor = (chainId: number, rpcUrl: string) =>
  readRelayerConfig(
    { RELAYER_PK: devnetAccounts.relayer.privateKey, RELAYER_CHAIN_ID: String(chainId), RELAYER_RPC_URL: rpcUrl, RELAYER_BROKER: devnet.manifest.contracts.broker },
    { host: '127.0.0.1', port: 0 },
  )

test('an RPC of another chain: serve refuses, naming both chains', async () => {
  const relayer = createRelayer(configFor(46630, devnet.rpcUrl), { logger: createMemoryLogger(), version: 'test' })
  await expect(relayer.serve()).rejects.toThrow('RELAYER_RPC_URL serves chain 421614, not RELAYER_CHAIN_ID 46630')
})

test('an RPC that does not answer: serve starts and warns once', async () => {
  const logger = createMemoryLogger()
  const deadRpc = `http://127.0.0.1:${await freePort()}`
  const server = await createRelayer(configFor(421614, deadRpc), { logger, version: 'test' }).serve()
  try {
    expect(logger.lines.filter((line) => line.startsWith('warn: the RPC does not answer yet'))).toHaveLength(1)
    const info = await (await fetch(`${server.url}/info`)).json()
    expect(info.relayer).toBe(devnetAccounts.relayer.address)
  } finally {
    await server.stop()
  }
})
