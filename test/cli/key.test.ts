// `order-relay key new|import` as a user runs it with stdin piped: the keystore is
// written mode 0600 and never over a file, opens with the password to the address
// printed, and neither the key nor the password ever reaches stdout or stderr.
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateKeyToAddress } from 'viem/accounts'
import { decryptKeystore } from '../../src/signers/keystore/index.ts'

const repo = join(import.meta.dir, '../..')
const dir = mkdtempSync(join(tmpdir(), 'order-relay-key-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const key = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a'
const address = privateKeyToAddress(key)
const password = 'piped password 7'

/** Runs `order-relay key …` from the sources in `dir` with `stdin` piped; its exit code and output. */
async function runKey(args: string[], stdin: string) {
  const child = Bun.spawn([process.execPath, join(repo, 'src/cli/main.ts'), 'key', ...args], {
    cwd: dir,
    stdin: new TextEncoder().encode(stdin),
    stdout: 'pipe',
    stderr: 'pipe',
    env: { PATH: process.env.PATH ?? '', HOME: dir },
  })
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { code, out, err }
}

/** Neither secret, in any spelling, in what the command printed. */
function expectNoSecrets(run: { out: string; err: string }, secrets: string[]) {
  for (const secret of secrets) {
    for (const spelling of [secret, secret.replace(/^0x/, ''), secret.toUpperCase()]) {
      expect(run.out).not.toContain(spelling)
      expect(run.err).not.toContain(spelling)
    }
  }
}

describe('key import', () => {
  test('the key on the first line, the password on the second: mode 0600, the address, the path and the next step', async () => {
    const out = join(dir, 'imported.json')
    const run = await runKey(['import', '--out', out, '--kdf', 'pbkdf2'], `${key}\n${password}\n`)
    expect(run.code).toBe(0)
    const lines = run.out.trim().split('\n')
    expect(lines[0]).toBe(`address  ${address}`)
    expect(lines[1]).toBe(`keystore ${out} (mode 0600)`)
    expect(lines[2]).toStartWith(`next: RELAYER_KEYSTORE=${out} RELAYER_KEYSTORE_PASSWORD_FILE=/path/to/password-file `)
    expect(lines[2]).toEndWith(' relayer')
    expect(run.err).toBe('Put the password in a file of its own (mode 0600) for RELAYER_KEYSTORE_PASSWORD_FILE, or give it as the systemd credential of that name.\n')
    expect(statSync(out).mode & 0o777).toBe(0o600)
    expect(await decryptKeystore(readFileSync(out, 'utf8'), password, { path: out })).toBe(key)
    expect(readFileSync(out, 'utf8')).not.toContain(key.slice(2))
    expectNoSecrets(run, [key, password])
  })
  test('a file that exists is never overwritten, before any secret is read', async () => {
    const out = join(dir, 'taken.json')
    writeFileSync(out, 'the only copy\n')
    const run = await runKey(['import', '--out', out], `${key}\n${password}\n`)
    expect(run.code).toBe(1)
    expect(run.err).toBe(
      `order-relay key: ${out} exists; a keystore is never overwritten\nfix: pass --out with another path, or move the existing file away first (it may hold the only copy of a key)\n`,
    )
    expect(readFileSync(out, 'utf8')).toBe('the only copy\n')
    expectNoSecrets(run, [key, password])
  })
  test('a line that is not a key is refused without echoing it', async () => {
    const notAKey = `${key.slice(0, 60)}zz`
    const run = await runKey(['import', '--out', join(dir, 'bad.json')], `${notAKey}\n${password}\n`)
    expect(run.code).toBe(2)
    expect(run.err.split('\n')[0]).toBe("order-relay key: the private key read from stdin's first line is not 0x + 64 hex digits of a valid secp256k1 key")
    expect(existsSync(join(dir, 'bad.json'))).toBe(false)
    expectNoSecrets(run, [notAKey, password])
  })
  test('no password on stdin', async () => {
    const run = await runKey(['import', '--out', join(dir, 'nopw.json')], `${key}\n`)
    expect(run.code).toBe(2)
    expect(run.err.split('\n')[0]).toBe('order-relay key: no password on stdin (line 2): a keystore needs a password')
    expectNoSecrets(run, [key])
  })
  test('a key given as an argument is refused and not echoed', async () => {
    const run = await runKey(['import', key], '')
    expect(run.code).toBe(2)
    expect(run.err.split('\n')[0]).toBe('order-relay key: import takes no arguments (the key and the password are never given as arguments)')
    expectNoSecrets(run, [key])
  })
})

describe('key new', () => {
  test('--password-file: a random key, the next step names the password file', async () => {
    const passwordFile = join(dir, 'password')
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 })
    const out = join(dir, 'new.json')
    const run = await runKey(['new', '--out', out, '--kdf', 'pbkdf2', '--password-file', passwordFile], '')
    expect(run.code).toBe(0)
    const printed = run.out.match(/^address {2}(0x[0-9a-fA-F]{40})$/m)?.[1] as `0x${string}`
    const opened = await decryptKeystore(readFileSync(out, 'utf8'), password, { path: out })
    expect(privateKeyToAddress(opened)).toBe(printed)
    expect(run.out).toContain(`next: RELAYER_KEYSTORE=${out} RELAYER_KEYSTORE_PASSWORD_FILE=${passwordFile} `)
    expect(run.err).toBe('')
    expect(statSync(out).mode & 0o777).toBe(0o600)
    expectNoSecrets(run, [opened, password])
  })
  test('the password piped on the first line, scrypt by default, the default file name in the working folder', async () => {
    const run = await runKey(['new'], `${password}\n`)
    expect(run.code).toBe(0)
    const printed = run.out.match(/^address {2}(0x[0-9a-fA-F]{40})$/m)?.[1] as `0x${string}`
    const out = join(dir, `keystore-${printed}.json`)
    expect(run.out).toContain(`keystore ${out} (mode 0600)`)
    const file = JSON.parse(readFileSync(out, 'utf8'))
    expect(file.crypto.kdfparams.n).toBe(262144)
    expect(file.address).toBe(printed.slice(2).toLowerCase())
    const opened = await decryptKeystore(file, password, { path: out })
    expect(privateKeyToAddress(opened)).toBe(printed)
    expectNoSecrets(run, [opened, password])
  })
  test('usage errors exit 2: no subcommand, an unknown --kdf, an empty password file', async () => {
    expect((await runKey([], '')).err.split('\n')[0]).toBe('order-relay key: expects a subcommand: new or import')
    const kdf = await runKey(['new', '--kdf', 'argon2'], `${password}\n`)
    expect([kdf.code, kdf.err.split('\n')[0]]).toEqual([2, 'order-relay key: --kdf must be scrypt or pbkdf2'])
    const empty = join(dir, 'empty-password')
    writeFileSync(empty, '\n')
    const run = await runKey(['new', '--out', join(dir, 'x.json'), '--password-file', empty], '')
    expect([run.code, run.err.split('\n')[0]]).toEqual([2, `order-relay key: --password-file ${empty} is empty: a keystore needs a password`])
    expect(existsSync(join(dir, 'x.json'))).toBe(false)
  })
  test('a --password flag does not exist: exit 2 with the usage line, its value not echoed', async () => {
    const run = await runKey(['new', '--password', password], '')
    expect(run.code).toBe(2)
    expect(run.err).toContain('Usage: order-relay key new|import [options]')
    expectNoSecrets(run, [password])
  })
})
