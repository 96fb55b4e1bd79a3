// Exactly one source of the gas key: RELAYER_PK, RELAYER_KEYSTORE, RELAYER_SIGNER_URL or
// RELAYER_KMS_KEY_ID. Two set is a start-up error naming both (exit 2); none names all four.
import { expect, test } from 'bun:test'
import { resolve } from 'node:path'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { readRelayerConfig } from '../../src/relayer/index.ts'
import { keySourceOf } from '../../src/signers/index.ts'

const repo = resolve(import.meta.dir, '../..')
const chain = { RELAYER_CHAIN_ID: '31337', RELAYER_RPC_URL: 'http://127.0.0.1:1', RELAYER_BROKER: `0x${'0'.repeat(39)}1`, RELAYER_DB: ':memory:' }

test('each variable names its source; an empty value is unset', () => {
  const problems: string[] = []
  expect(keySourceOf({ RELAYER_PK: devnetAccounts.spare.privateKey }, (p) => problems.push(p))).toEqual({ kind: 'private-key', variable: 'RELAYER_PK' })
  expect(keySourceOf({ RELAYER_KEYSTORE: '/k.json', RELAYER_PK: '' }, (p) => problems.push(p))).toEqual({ kind: 'keystore', variable: 'RELAYER_KEYSTORE' })
  expect(keySourceOf({ RELAYER_SIGNER_URL: 'http://127.0.0.1:9' }, (p) => problems.push(p))).toEqual({ kind: 'remote', variable: 'RELAYER_SIGNER_URL' })
  expect(keySourceOf({ RELAYER_KMS_KEY_ID: 'alias/gas' }, (p) => problems.push(p))).toEqual({ kind: 'aws-kms', variable: 'RELAYER_KMS_KEY_ID' })
  expect(problems).toEqual([])
})

test('two sources set: a configuration error naming both, never a value', () => {
  let message = ''
  try {
    readRelayerConfig({ ...chain, RELAYER_PK: devnetAccounts.spare.privateKey, RELAYER_KEYSTORE: '/etc/order-relay/keystore.json' })
  } catch (error) {
    message = (error as Error).message
  }
  expect(message).toBe('invalid relayer configuration:\n  - RELAYER_PK and RELAYER_KEYSTORE are set: set exactly one source of the gas key (docs/keys.md)')
})

test('a keystore alone reads as the keystore source, with no key in the configuration', () => {
  const config = readRelayerConfig({ ...chain, RELAYER_KEYSTORE: '/etc/order-relay/keystore.json' })
  expect([config.keySource, 'privateKey' in config]).toEqual(['keystore', false])
})

test('the relayer command: two sources exit 2 naming both; none names all four', async () => {
  const run = async (env: Record<string, string>) => {
    const child = Bun.spawn([process.execPath, 'src/cli/main.ts', 'relayer'], { cwd: repo, env: { PATH: process.env.PATH ?? '', ...chain, ...env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
    const [err, code] = await Promise.all([new Response(child.stderr).text(), child.exited])
    return { err, code }
  }
  const both = await run({ RELAYER_SIGNER_URL: 'http://127.0.0.1:9', RELAYER_KMS_KEY_ID: 'alias/gas' })
  expect(both.code).toBe(2)
  expect(both.err).toContain('RELAYER_SIGNER_URL and RELAYER_KMS_KEY_ID are set: set exactly one source of the gas key (docs/keys.md)')
  const none = await run({})
  expect(none.code).toBe(2)
  expect(none.err).toContain(
    'RELAYER_PK is required: the hex private key of the gas account (0x + 64 hex digits), or another source of the gas key: RELAYER_KEYSTORE (an encrypted keystore file), RELAYER_SIGNER_URL (a remote signer) or RELAYER_KMS_KEY_ID (an AWS KMS key); docs/keys.md',
  )
}, 30_000)
