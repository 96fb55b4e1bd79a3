// openKeystoreSigner: the password from RELAYER_KEYSTORE_PASSWORD_FILE or the systemd
// credential of that name, the keystore decrypted once, and a GasSigner that signs with
// the key while its description names only the file and the address.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseEther, recoverTransactionAddress } from 'viem'
import { SignerError } from '../../src/signers/gasSigner.ts'
import { encryptKeystore, openKeystoreSigner } from '../../src/signers/keystore/index.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-keystore-signer-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const key = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
const address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const password = 'correct horse battery staple'
const keystore = join(dir, 'gas.json')
writeFileSync(keystore, JSON.stringify(await encryptKeystore(key, password, { scrypt: { n: 4096, r: 8, p: 1 } })), { mode: 0o600 })
const passwordFile = join(dir, 'password')
writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 })
const credentials = join(dir, 'credentials')
mkdirSync(credentials)
writeFileSync(join(credentials, 'RELAYER_KEYSTORE_PASSWORD_FILE'), `${password}\r\n`)

async function refusal(run: Promise<unknown>): Promise<SignerError> {
  const error = await run.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(SignerError)
  const shown = [(error as SignerError).message, (error as SignerError).fix ?? '', JSON.stringify(error)].join('\n')
  for (const secret of [password, key, key.slice(2)]) expect(shown).not.toContain(secret)
  expect((error as SignerError).code).toBe('SIGNER_CONFIG')
  expect((error as SignerError).exitCode).toBe(2)
  return error as SignerError
}

const both =
  'set RELAYER_KEYSTORE_PASSWORD_FILE to a file holding the password, or give systemd a credential named RELAYER_KEYSTORE_PASSWORD_FILE (LoadCredential=RELAYER_KEYSTORE_PASSWORD_FILE:/path/to/file)'

describe('openKeystoreSigner', () => {
  test('a password file with one trailing newline opens it; the signer signs as the key\'s address', async () => {
    const signer = await openKeystoreSigner({ path: keystore, passwordFile, env: {} })
    expect(signer.kind).toBe('keystore')
    expect(signer.address).toBe(address)
    expect(signer.description).toBe(`keystore ${keystore} (${address})`)
    const serialized = await signer.signTransaction({ chainId: 31337, nonce: 0, to: address, value: parseEther('1'), gas: 21000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n, type: 'eip1559' })
    expect(await recoverTransactionAddress({ serializedTransaction: serialized as `0x02${string}` })).toBe(address)
    expect(signer.takePrivateKey?.()).toBe(key)
    expect(signer.takePrivateKey?.()).toBeUndefined()
    expect(JSON.stringify(signer)).not.toContain(password)
  })
  test('the systemd credential RELAYER_KEYSTORE_PASSWORD_FILE in $CREDENTIALS_DIRECTORY (CRLF dropped)', async () => {
    const signer = await openKeystoreSigner({ path: keystore, env: { CREDENTIALS_DIRECTORY: credentials } })
    expect(signer.address).toBe(address)
  })
  test('RELAYER_KEYSTORE_PASSWORD_FILE is read before the credential', async () => {
    const wrong = join(dir, 'wrong-password')
    writeFileSync(wrong, 'not it\n')
    const error = await refusal(openKeystoreSigner({ path: keystore, passwordFile: wrong, env: { CREDENTIALS_DIRECTORY: credentials } }))
    expect(error.message).toBe(`keystore ${keystore}: the password does not open it (MAC mismatch)`)
    expect(error.fix).toBe('check RELAYER_KEYSTORE_PASSWORD_FILE: it must hold the password the keystore was written with (one trailing newline is ignored)')
  })
  test('only one trailing newline is dropped: a second one is part of the password', async () => {
    const twice = join(dir, 'two-newlines')
    writeFileSync(twice, `${password}\n\n`)
    expect((await refusal(openKeystoreSigner({ path: keystore, passwordFile: twice, env: {} }))).message).toBe(`keystore ${keystore}: the password does not open it (MAC mismatch)`)
  })
  test('no password file and no credential', async () => {
    const error = await refusal(openKeystoreSigner({ path: keystore, env: {} }))
    expect(error.message).toBe('RELAYER_KEYSTORE is set but no password is given: RELAYER_KEYSTORE_PASSWORD_FILE is unset and there is no systemd credential (CREDENTIALS_DIRECTORY is unset)')
    expect(error.fix).toBe(both)
  })
  test('a missing password file, and a credentials directory without the credential', async () => {
    const missing = join(dir, 'nope')
    const error = await refusal(openKeystoreSigner({ path: keystore, passwordFile: missing, env: {} }))
    expect(error.message).toBe(`cannot read the keystore password from RELAYER_KEYSTORE_PASSWORD_FILE ${missing}: ENOENT`)
    expect(error.fix).toBe(both)
    const empty = join(dir, 'empty-credentials')
    mkdirSync(empty)
    expect((await refusal(openKeystoreSigner({ path: keystore, env: { CREDENTIALS_DIRECTORY: empty } }))).message).toBe(
      `cannot read the keystore password from the systemd credential RELAYER_KEYSTORE_PASSWORD_FILE ${join(empty, 'RELAYER_KEYSTORE_PASSWORD_FILE')}: ENOENT`,
    )
  })
  test('a missing keystore file', async () => {
    const missing = join(dir, 'missing.json')
    const error = await refusal(openKeystoreSigner({ path: missing, passwordFile, env: {} }))
    expect(error.message).toBe(`keystore ${missing}: cannot be read: ENOENT`)
    expect(error.fix).toBe('set RELAYER_KEYSTORE to a keystore file this user can read (write one with `order-relay key new` or `order-relay key import`)')
  })
  test('a corrupt keystore file', async () => {
    const corrupt = join(dir, 'corrupt.json')
    writeFileSync(corrupt, '{"crypto": {"cipher": "aes-128-ctr"')
    expect((await refusal(openKeystoreSigner({ path: corrupt, passwordFile, env: {} }))).message).toStartWith(`keystore ${corrupt}: is not valid JSON (`)
  })
})
