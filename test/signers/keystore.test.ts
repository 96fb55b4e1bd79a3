// Encrypted keystores (Web3 Secret Storage v3): the specification's test vectors, files
// written by Foundry's cast (from npm) read here and files written here read by cast,
// and every way a keystore can fail to open, each naming the file and the fix and never
// the password or the key.
import { afterAll, describe, expect, test } from 'bun:test'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateKeyToAddress } from 'viem/accounts'
import { decryptKeystore, encryptKeystore, openKeystoreSigner } from '../../src/signers/keystore/index.ts'
import { SignerError } from '../../src/signers/index.ts'

const dir = mkdtempSync(join(tmpdir(), 'keystore-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const cast = join(import.meta.dir, '../../node_modules/.bin/cast')

// The Web3 Secret Storage definition's two examples: password "testpassword".
const vectorKey = '0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d'
const pbkdf2Vector = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
    ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
    kdf: 'pbkdf2',
    kdfparams: { c: 262144, dklen: 32, prf: 'hmac-sha256', salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd' },
    mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
}
const scryptVector = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '83dbcc02d8ccb40e466191a123791e0e' },
    ciphertext: 'd172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c',
    kdf: 'scrypt',
    kdfparams: { dklen: 32, n: 262144, p: 8, r: 1, salt: 'ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19' },
    mac: '2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
}

/** The SignerError a promise rejects with. */
async function refusal(promise: Promise<unknown>): Promise<SignerError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(SignerError)
    return error as SignerError
  }
  throw new Error('expected a SignerError')
}

function file(name: string, content: string | object, mode = 0o600): string {
  const path = join(dir, name)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
  chmodSync(path, mode)
  return path
}

async function run(argv: string[]) {
  const child = Bun.spawn(argv, { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' })
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  if (code !== 0) throw new Error(`${argv.join(' ')} exited ${code}: ${err}`)
  return out
}

describe('the specification\'s test vectors', () => {
  test('PBKDF2-SHA-256', async () => {
    expect(await decryptKeystore(pbkdf2Vector, 'testpassword', { path: 'pbkdf2.json' })).toBe(vectorKey)
  })
  test('scrypt', async () => {
    expect(await decryptKeystore(JSON.stringify(scryptVector), 'testpassword', { path: 'scrypt.json' })).toBe(vectorKey)
  }, 30_000)
})

describe('Foundry\'s cast', () => {
  const key = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a'
  const password = 'a password with spaces and ünïcödé'

  test('a keystore cast wallet import wrote opens here, with its password from a file', async () => {
    await run([cast, 'wallet', 'import', 'imported', '--keystore-dir', dir, '--private-key', key, '--unsafe-password', password])
    const signer = await openKeystoreSigner({ path: join(dir, 'imported'), passwordFile: file('imported.password', `${password}\n`), env: {} })
    expect([signer.kind, signer.address, signer.description]).toEqual(['keystore', privateKeyToAddress(key), `keystore ${join(dir, 'imported')} (${privateKeyToAddress(key)})`])
    expect(signer.takePrivateKey?.()).toBe(key)
  }, 30_000)

  test('a keystore cast wallet new wrote opens here, at the address cast printed', async () => {
    const out = await run([cast, 'wallet', 'new', dir, 'fresh', '--unsafe-password', password])
    const address = out.match(/Address:\s+(0x[0-9a-fA-F]{40})/)?.[1]
    expect(address).toBeDefined()
    const signer = await openKeystoreSigner({ path: join(dir, 'fresh'), passwordFile: file('fresh.password', password), env: {} })
    expect(signer.address.toLowerCase()).toBe(address!.toLowerCase())
  }, 30_000)

  for (const kdf of ['scrypt', 'pbkdf2'] as const) {
    test(`a keystore written here (${kdf}) opens in cast, at the same address`, async () => {
      const written = file(`written-${kdf}.json`, await encryptKeystore(key, password, { kdf }))
      const out = await run([cast, 'wallet', 'address', '--keystore', written, '--password', password])
      expect(out.trim().toLowerCase()).toBe(privateKeyToAddress(key).toLowerCase())
      expect(await decryptKeystore(readFileSync(written, 'utf8'), password, { path: written })).toBe(key)
    }, 30_000)
  }
})

describe('a keystore that does not open stops the relayer, naming the file and the fix', () => {
  const key = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba'
  const password = 'correct horse battery staple'
  let good: object
  const secretsAbsent = (error: SignerError) => {
    const text = `${error.message}\n${error.fix ?? ''}`
    for (const secret of [password, key.slice(2), 'not-the-password-9271']) expect(text).not.toContain(secret)
  }

  test('a wrong password: a MAC mismatch', async () => {
    good = await encryptKeystore(key, password, { kdf: 'pbkdf2' })
    const path = file('good.json', good)
    const error = await refusal(openKeystoreSigner({ path, passwordFile: file('wrong.password', 'not-the-password-9271'), env: {} }))
    expect([error.code, error.exitCode, error.shortMessage]).toEqual(['SIGNER_CONFIG', 2, `RELAYER_KEYSTORE ${path}: the password does not open it (MAC mismatch: a wrong password, or a changed file)`])
    expect(error.fix).toContain('RELAYER_KEYSTORE_PASSWORD_FILE')
    secretsAbsent(error)
  }, 30_000)

  test('a corrupt file: truncated, not JSON; a changed ciphertext byte; not a v3 keystore', async () => {
    const text = JSON.stringify(good)
    const truncated = file('truncated.json', text.slice(0, text.length / 2))
    const passwordFile = file('good.password', password)
    expect((await refusal(openKeystoreSigner({ path: truncated, passwordFile, env: {} }))).shortMessage).toBe(`RELAYER_KEYSTORE ${truncated}: it is not JSON (a truncated or corrupt file?)`)
    const changed = structuredClone(good) as { crypto: { ciphertext: string } }
    changed.crypto.ciphertext = `${changed.crypto.ciphertext[0] === '0' ? '1' : '0'}${changed.crypto.ciphertext.slice(1)}`
    const flipped = file('flipped.json', changed)
    expect((await refusal(openKeystoreSigner({ path: flipped, passwordFile, env: {} }))).shortMessage).toBe(`RELAYER_KEYSTORE ${flipped}: the password does not open it (MAC mismatch: a wrong password, or a changed file)`)
    const v1 = file('v1.json', { ...good, version: 1 })
    expect((await refusal(openKeystoreSigner({ path: v1, passwordFile, env: {} }))).shortMessage).toBe(`RELAYER_KEYSTORE ${v1}: it is not a Web3 Secret Storage v3 keystore (version must be 3 (Web3 Secret Storage v3))`)
    const missing = join(dir, 'missing.json')
    expect((await refusal(openKeystoreSigner({ path: missing, passwordFile, env: {} }))).shortMessage).toBe(`RELAYER_KEYSTORE ${missing}: no such file`)
  }, 30_000)

  test('an unsupported KDF or cipher, and scrypt parameters that would exhaust memory', async () => {
    const passwordFile = file('good.password', password)
    const base = good as { crypto: Record<string, unknown> }
    const argon = file('argon.json', { ...base, crypto: { ...base.crypto, kdf: 'argon2id' } })
    const error = await refusal(openKeystoreSigner({ path: argon, passwordFile, env: {} }))
    expect([error.code, error.shortMessage]).toEqual(['SIGNER_CONFIG', `RELAYER_KEYSTORE ${argon}: its KDF "argon2id" is not supported (scrypt or pbkdf2)`])
    expect(error.fix).toBe('write the key into a keystore with scrypt or pbkdf2 and sane parameters: order-relay key import, or cast wallet import')
    const cbc = file('cbc.json', { ...base, crypto: { ...base.crypto, cipher: 'aes-128-cbc' } })
    expect((await refusal(openKeystoreSigner({ path: cbc, passwordFile, env: {} }))).shortMessage).toBe(`RELAYER_KEYSTORE ${cbc}: its cipher "aes-128-cbc" is not supported (aes-128-ctr)`)
    const huge = file('huge.json', { ...scryptVector, crypto: { ...scryptVector.crypto, kdfparams: { ...scryptVector.crypto.kdfparams, n: 2 ** 24, r: 8 } } })
    expect((await refusal(openKeystoreSigner({ path: huge, passwordFile, env: {} }))).shortMessage).toBe(
      `RELAYER_KEYSTORE ${huge}: its scrypt parameters (n=16777216, r=8, p=8, dklen=32) ask for more than this relayer allows (128·n·r at most 1 GiB, p at most 16, dklen 32 to 64)`,
    )
  }, 30_000)

  test('the password: a missing file, an empty one, none given; the systemd credential', async () => {
    const path = file('good.json', good)
    const missing = join(dir, 'no.password')
    expect((await refusal(openKeystoreSigner({ path, passwordFile: missing, env: {} }))).shortMessage).toBe(`the keystore's password file ${missing}: no such file`)
    const empty = file('empty.password', '\n')
    expect((await refusal(openKeystoreSigner({ path, passwordFile: empty, env: {} }))).shortMessage).toBe(`the keystore's password file ${empty} is empty`)
    const none = await refusal(openKeystoreSigner({ path, env: {} }))
    expect([none.shortMessage, none.fix]).toEqual([
      'RELAYER_KEYSTORE is set without its password',
      'set RELAYER_KEYSTORE_PASSWORD_FILE to a file holding the password (mode 0600), or give the systemd credential RELAYER_KEYSTORE_PASSWORD_FILE (LoadCredential=)',
    ])
    const credentials = mkdtempSync(join(dir, 'credentials-'))
    writeFileSync(join(credentials, 'RELAYER_KEYSTORE_PASSWORD_FILE'), `${password}\n`)
    const signer = await openKeystoreSigner({ path, env: { CREDENTIALS_DIRECTORY: credentials } })
    expect(signer.address).toBe(privateKeyToAddress(key))
  }, 30_000)

  test('an address field that is not the key\'s', async () => {
    const passwordFile = file('good.password', password)
    const other = file('other-address.json', { ...good, address: '1111111111111111111111111111111111111111' })
    expect((await refusal(openKeystoreSigner({ path: other, passwordFile, env: {} }))).shortMessage).toBe(
      `RELAYER_KEYSTORE ${other}: its address field (0x1111111111111111111111111111111111111111) is not the address of the key it holds (${privateKeyToAddress(key)})`,
    )
  }, 30_000)
})
