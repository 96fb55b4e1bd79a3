// Web3 Secret Storage v3: the definition's own test vectors open, what encryptKeystore
// writes opens again, and every broken file is refused with SIGNER_CONFIG naming the
// file and the fix, never the password or the key.
import { describe, expect, test } from 'bun:test'
import { privateKeyToAddress } from 'viem/accounts'
import { SignerError } from '../../src/signers/gasSigner.ts'
import { decryptKeystore, encryptKeystore } from '../../src/signers/keystore/index.ts'

const password = 'testpassword'
const secret = '0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d'

// The PBKDF2-SHA-256 and scrypt examples of the Web3 Secret Storage Definition (the
// Ethereum wiki page geth's tests cite), verbatim.
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

/** The SignerError a call rejects with, checked to carry neither secret anywhere a user could see. */
async function refusal(run: Promise<unknown>, secrets: string[] = [password, secret, secret.slice(2)]): Promise<SignerError> {
  const error = await run.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(SignerError)
  const signerError = error as SignerError
  const shown = [signerError.message, signerError.fix ?? '', String(signerError.cause ?? ''), JSON.stringify(signerError)].join('\n')
  for (const word of secrets) expect(shown).not.toContain(word)
  return signerError
}

describe('the definition\'s test vectors', () => {
  test('pbkdf2 (hmac-sha256, c = 262144) opens to the secret', async () => {
    expect(await decryptKeystore(pbkdf2Vector, password, { path: 'pbkdf2.json' })).toBe(secret)
  })
  test('scrypt (n = 262144, r = 1, p = 8) opens to the secret, from JSON text too', async () => {
    expect(await decryptKeystore(JSON.stringify(scryptVector), password, { path: 'scrypt.json' })).toBe(secret)
  })
  test('the secret\'s address is the definition\'s', () => {
    expect(privateKeyToAddress(secret).toLowerCase()).toBe('0x008aeeda4d805471df9b2a5b0f38a0c3bcba786b')
  })
})

describe('encryptKeystore', () => {
  test('scrypt by default with geth\'s cost, random salt, iv and v4 id, the address without 0x; it opens again', async () => {
    const file = await encryptKeystore(secret, 'another password')
    expect(file.version).toBe(3)
    expect(file.address).toBe('008aeeda4d805471df9b2a5b0f38a0c3bcba786b')
    expect(file.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(file.crypto.cipher).toBe('aes-128-ctr')
    expect(file.crypto.kdf).toBe('scrypt')
    expect(file.crypto.kdfparams).toEqual({ dklen: 32, n: 262144, r: 8, p: 1, salt: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(file.crypto.cipherparams.iv).toMatch(/^[0-9a-f]{32}$/)
    expect(file.crypto.ciphertext).toMatch(/^[0-9a-f]{64}$/)
    expect(file.crypto.mac).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(file)).not.toContain(secret.slice(2))
    expect(await decryptKeystore(JSON.stringify(file), 'another password', { path: 'k.json' })).toBe(secret)
  })
  test('pbkdf2 (hmac-sha256, c = 262144) opens again', async () => {
    const file = await encryptKeystore(secret, password, { kdf: 'pbkdf2' })
    expect(file.crypto.kdfparams).toEqual({ c: 262144, dklen: 32, prf: 'hmac-sha256', salt: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(await decryptKeystore(file, password, { path: 'k.json' })).toBe(secret)
  })
  test('two files of one key share no salt, iv or ciphertext', async () => {
    const [a, b] = await Promise.all([encryptKeystore(secret, password, { kdf: 'pbkdf2', pbkdf2: { c: 1000 } }), encryptKeystore(secret, password, { kdf: 'pbkdf2', pbkdf2: { c: 1000 } })])
    expect(a!.crypto.kdfparams.salt).not.toBe(b!.crypto.kdfparams.salt)
    expect(a!.crypto.cipherparams.iv).not.toBe(b!.crypto.cipherparams.iv)
    expect(a!.crypto.ciphertext).not.toBe(b!.crypto.ciphertext)
    expect(a!.id).not.toBe(b!.id)
  })
  test('a UTF-8 password with spaces and non-ASCII letters round-trips', async () => {
    const file = await encryptKeystore(secret, ' pässwörd ✓ ', { scrypt: { n: 1024, r: 8, p: 1 } })
    expect(await decryptKeystore(file, ' pässwörd ✓ ', { path: 'k.json' })).toBe(secret)
  })
})

describe('what decryptKeystore reads beside what it writes', () => {
  test('`Crypto` (as old geth files spell it) and 0x-prefixed hex fields', async () => {
    const { crypto, ...rest } = pbkdf2Vector
    const file = { ...rest, Crypto: { ...crypto, mac: `0x${crypto.mac}`, cipherparams: { iv: `0x${crypto.cipherparams.iv}` } } }
    expect(await decryptKeystore(file, password, { path: 'upper.json' })).toBe(secret)
  })
})

describe('files that are refused: SIGNER_CONFIG, exit 2, the file and the fix named', () => {
  const path = '/etc/order-relay/gas.json'
  // A cheap scrypt cost keeps these fast; the checks are the same at any cost.
  const cheap = () => encryptKeystore(secret, password, { scrypt: { n: 1024, r: 8, p: 1 } })
  const restore = 'restore the file from its backup, or write it again with `order-relay key import`'
  const rewrite = 'write the keystore again with `order-relay key import` (or `cast wallet import`)'

  test('a wrong password', async () => {
    const error = await refusal(decryptKeystore(await cheap(), 'wrong password', { path }), [password, 'wrong password', secret, secret.slice(2)])
    expect(error.code).toBe('SIGNER_CONFIG')
    expect(error.exitCode).toBe(2)
    expect(error.message).toBe(`keystore ${path}: the password does not open it (MAC mismatch)`)
    expect(error.fix).toBe('check RELAYER_KEYSTORE_PASSWORD_FILE: it must hold the password the keystore was written with (one trailing newline is ignored)')
  })
  test('a wrong password on the spec vector', async () => {
    const error = await refusal(decryptKeystore(pbkdf2Vector, 'testpassword\n', { path }))
    expect(error.message).toBe(`keystore ${path}: the password does not open it (MAC mismatch)`)
  })
  test('one changed ciphertext byte fails the MAC', async () => {
    const file = await cheap()
    const first = file.crypto.ciphertext.slice(0, 2) === '00' ? '01' : '00'
    file.crypto.ciphertext = first + file.crypto.ciphertext.slice(2)
    const error = await refusal(decryptKeystore(file, password, { path }))
    expect(error.message).toBe(`keystore ${path}: the password does not open it (MAC mismatch)`)
  })
  test('truncated JSON', async () => {
    const text = JSON.stringify(await cheap())
    const error = await refusal(decryptKeystore(text.slice(0, 100), password, { path }))
    expect(error.code).toBe('SIGNER_CONFIG')
    expect(error.message).toStartWith(`keystore ${path}: is not valid JSON (`)
    expect(error.fix).toBe(restore)
  })
  test('a missing mac and a short iv, each named', async () => {
    const file = await cheap()
    const broken = { ...file, crypto: { ...file.crypto, mac: undefined, cipherparams: { iv: 'abcd' } } }
    const error = await refusal(decryptKeystore(broken, password, { path }))
    expect(error.message).toBe(
      `keystore ${path}: is not a Web3 Secret Storage v3 keystore (crypto.cipherparams.iv: iv must be 16 bytes of hex; crypto.mac: Invalid type: Expected string but received undefined)`,
    )
  })
  test('no crypto at all, and version 1', async () => {
    expect((await refusal(decryptKeystore({ version: 3, id: 'x' }, password, { path }))).message).toBe(`keystore ${path}: is not a Web3 Secret Storage v3 keystore (the file: crypto is missing)`)
    const file = await cheap()
    expect((await refusal(decryptKeystore({ ...file, version: 1 }, password, { path }))).message).toBe(
      `keystore ${path}: is not a Web3 Secret Storage v3 keystore (version: version must be 3 (Web3 Secret Storage v3))`,
    )
  })
  test('an unsupported KDF names it and what is supported', async () => {
    const file = await cheap()
    const error = await refusal(decryptKeystore({ ...file, crypto: { ...file.crypto, kdf: 'argon2id' } }, password, { path }))
    expect(error.message).toBe(`keystore ${path}: kdf "argon2id" is not supported (supported: scrypt, pbkdf2)`)
    expect(error.fix).toBe(rewrite)
  })
  test('an unsupported cipher and pbkdf2 PRF name them', async () => {
    const file = await cheap()
    expect((await refusal(decryptKeystore({ ...file, crypto: { ...file.crypto, cipher: 'aes-128-cbc' } }, password, { path }))).message).toBe(
      `keystore ${path}: cipher "aes-128-cbc" is not supported (only aes-128-ctr)`,
    )
    const sha512 = { ...pbkdf2Vector, crypto: { ...pbkdf2Vector.crypto, kdfparams: { ...pbkdf2Vector.crypto.kdfparams, prf: 'hmac-sha512' } } }
    expect((await refusal(decryptKeystore(sha512, password, { path }))).message).toBe(`keystore ${path}: pbkdf2 prf "hmac-sha512" is not supported (only hmac-sha256)`)
  })
  test('absurd scrypt and pbkdf2 costs are refused before any work', async () => {
    const file = await cheap()
    const withParams = (kdfparams: Record<string, unknown>) => ({ ...file, crypto: { ...file.crypto, kdfparams: { ...file.crypto.kdfparams, ...kdfparams } } })
    const started = Date.now()
    const huge = await refusal(decryptKeystore(withParams({ n: 2 ** 30 }), password, { path }))
    expect(huge.message).toBe(`keystore ${path}: scrypt n = 1073741824, r = 8, p = 1 exceed the limits (n ≤ 2^20, r ≤ 32, p ≤ 16, 128·r·n ≤ 1 GiB of memory)`)
    expect(huge.fix).toBe(`${rewrite}, which uses n = 2^18, r = 8, p = 1`)
    expect((await refusal(decryptKeystore(withParams({ n: 2 ** 20, r: 16 }), password, { path }))).message).toBe(
      `keystore ${path}: scrypt n = 1048576, r = 16, p = 1 exceed the limits (n ≤ 2^20, r ≤ 32, p ≤ 16, 128·r·n ≤ 1 GiB of memory)`,
    )
    expect((await refusal(decryptKeystore(withParams({ p: 1000 }), password, { path }))).message).toBe(
      `keystore ${path}: scrypt n = 1024, r = 8, p = 1000 exceed the limits (n ≤ 2^20, r ≤ 32, p ≤ 16, 128·r·n ≤ 1 GiB of memory)`,
    )
    expect((await refusal(decryptKeystore(withParams({ n: 1000 }), password, { path }))).message).toBe(`keystore ${path}: scrypt n = 1000 is not a power of two`)
    expect((await refusal(decryptKeystore(withParams({ n: -4 }), password, { path }))).message).toBe(`keystore ${path}: scrypt kdfparams are invalid: n must be at least 1`)
    expect((await refusal(decryptKeystore(withParams({ dklen: 16 }), password, { path }))).message).toBe(`keystore ${path}: kdfparams dklen = 16 is not supported (32 to 64)`)
    const pbkdf2 = { ...pbkdf2Vector, crypto: { ...pbkdf2Vector.crypto, kdfparams: { ...pbkdf2Vector.crypto.kdfparams, c: 2 ** 40 } } }
    expect((await refusal(decryptKeystore(pbkdf2, password, { path }))).message).toBe(`keystore ${path}: pbkdf2 c = 1099511627776 exceeds the limit (10000000)`)
    expect(Date.now() - started).toBeLessThan(2000)
  })
  test('an address field that is not the key\'s', async () => {
    const file = await cheap()
    const error = await refusal(decryptKeystore({ ...file, address: '00000000000000000000000000000000000000aa' }, password, { path }))
    expect(error.message).toBe(`keystore ${path}: its address field 00000000000000000000000000000000000000aa is not the address of the key it holds (0x008AeEda4D805471dF9b2A5B0f38A0C3bCBA786b)`)
  })
})
