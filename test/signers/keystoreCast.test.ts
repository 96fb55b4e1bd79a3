// Keystores cross between Foundry's cast (@foundry-rs/cast from npm) and order-relay
// both ways: what `cast wallet new` / `cast wallet import` write opens here, and what
// encryptKeystore writes (scrypt and pbkdf2) `cast wallet` opens to the same key.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateKeyToAddress } from 'viem/accounts'
import { decryptKeystore, encryptKeystore } from '../../src/signers/keystore/index.ts'

const repo = join(import.meta.dir, '../..')
const dir = mkdtempSync(join(tmpdir(), 'order-relay-keystore-cast-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs the npm package's cast; its stdout, failing the test with its stderr on a non-zero exit. */
function cast(args: string[]): string {
  const run = Bun.spawnSync([join(repo, 'node_modules/.bin/cast'), ...args], { stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '', HOME: dir } })
  if (run.exitCode !== 0) throw new Error(`cast ${args[0]} ${args[1]} exited ${run.exitCode}: ${run.stderr.toString()}`)
  return run.stdout.toString()
}

const key = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a'
const address = privateKeyToAddress(key)

describe('keystores cast writes open here', () => {
  test('`cast wallet new` to a folder: the file opens to the address cast printed', async () => {
    const out = cast(['wallet', 'new', dir, 'made-by-cast', '--unsafe-password', 'cast pw'])
    const printed = out.match(/Address:\s+(0x[0-9a-fA-F]{40})/)?.[1]
    expect(printed).toMatch(/^0x[0-9a-fA-F]{40}$/)
    const path = join(dir, 'made-by-cast')
    const opened = await decryptKeystore(readFileSync(path, 'utf8'), 'cast pw', { path })
    expect(privateKeyToAddress(opened)).toBe(printed as `0x${string}`)
  })
  test('`cast wallet import --private-key` opens to that key', async () => {
    cast(['wallet', 'import', 'imported-by-cast', '--keystore-dir', dir, '--private-key', key, '--unsafe-password', 'cast pw'])
    const path = join(dir, 'imported-by-cast')
    expect(JSON.parse(readFileSync(path, 'utf8')).crypto.kdf).toBe('scrypt')
    expect(await decryptKeystore(readFileSync(path, 'utf8'), 'cast pw', { path })).toBe(key)
  })
})

describe('keystores order-relay writes open in cast', () => {
  test.each(['scrypt', 'pbkdf2'] as const)('%s: `cast wallet address` and `cast wallet decrypt-keystore` give the address and the key', async (kdf) => {
    const name = `written-${kdf}.json`
    writeFileSync(join(dir, name), JSON.stringify(await encryptKeystore(key, 'relay pw', { kdf })), { mode: 0o600 })
    expect(cast(['wallet', 'address', '--keystore', join(dir, name), '--password', 'relay pw']).trim()).toBe(address)
    expect(cast(['wallet', 'decrypt-keystore', name, '--keystore-dir', dir, '--unsafe-password', 'relay pw']).trim()).toBe(`${name}'s private key is: ${key}`)
  })
})
