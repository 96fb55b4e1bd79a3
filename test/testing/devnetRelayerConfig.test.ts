// The devnet's relayer reads the RELAYER_* variables a standalone relayer reads, with
// the devnet's defaults where unset; the ones that would point it elsewhere are ignored.
import { expect, test } from 'bun:test'
import { devnetRelayerConfig } from '../../src/cli/lib/devnetRelayerConfig.ts'
import { ConfigError } from '../../src/shared/index.ts'
import { devnetAccounts } from '../../src/devnet/index.ts'

const devnet = {
  privateKey: devnetAccounts.relayer.privateKey,
  chainId: 421614,
  rpcUrl: 'http://127.0.0.1:9545',
  broker: devnetAccounts.spare.address,
  deployedAt: 3n,
  port: 9546,
}

test('unset: the devnet defaults (50 ms receipt polls, no journal file, anvil WebSocket), on the devnet chain and port', () => {
  const { config, ignored } = devnetRelayerConfig({}, devnet)
  expect(ignored).toEqual([])
  expect([config.chainId, config.rpcUrl, config.broker, config.deployedAt, config.host, config.port]).toEqual([421614, 'http://127.0.0.1:9545', devnetAccounts.spare.address, 3n, '127.0.0.1', 9546])
  expect([config.receiptPollMs, config.journalPath, config.wsUrl, config.feeFloorBps, config.revertCooldownMs, config.edge.enabled]).toEqual([50, ':memory:', 'ws://127.0.0.1:9545', 0, 600_000, false])
})

test('set: fee floor, cool-down, caps, journal and poll interval as a standalone relayer reads them', () => {
  const { config } = devnetRelayerConfig(
    {
      RELAYER_FEE_FLOOR_BPS: '25',
      RELAYER_REVERT_COOLDOWN_MS: '0',
      RELAYER_MAX_INFLIGHT: '3',
      RELAYER_RATE_PER_SEC: '2',
      RELAYER_DB: '/tmp/journal.sqlite',
      RELAYER_RECEIPT_POLL_MS: '300',
      RELAYER_WS_URL: 'off',
      HOME: '/home/nobody',
    },
    devnet,
  )
  expect([config.feeFloorBps, config.revertCooldownMs, config.edge.enabled, config.edge.maxInflight, config.edge.ratePerSec]).toEqual([25, 0, true, 3, 2])
  expect([config.journalPath, config.receiptPollMs, config.wsUrl]).toEqual(['/tmp/journal.sqlite', 300, undefined])
})

test("the variables the devnet sets are ignored and named, never used (the key's value is not repeated)", () => {
  const otherKey = devnetAccounts.secondRelayer.privateKey
  const { config, ignored } = devnetRelayerConfig({ RELAYER_PK: otherKey, RELAYER_PORT: '1', RELAYER_CHAIN_ID: '46630', RELAYER_MANIFEST: '/nowhere.json' }, devnet)
  expect(ignored).toEqual(['RELAYER_PK', 'RELAYER_CHAIN_ID', 'RELAYER_MANIFEST', 'RELAYER_PORT'])
  expect([config.privateKey, config.port, config.chainId]).toEqual([devnetAccounts.relayer.privateKey, 9546, 421614])
})

test('a bad value is a ConfigError naming the variable, as for `order-relay relayer`', () => {
  expect(() => devnetRelayerConfig({ RELAYER_FEE_FLOOR_BPS: 'lots' }, devnet)).toThrow(ConfigError)
  expect(() => devnetRelayerConfig({ RELAYER_FEE_FLOOR_BPS: 'lots' }, devnet)).toThrow('RELAYER_FEE_FLOOR_BPS must be an integer from 0 to 10000 (got "lots")')
})
