// The remote signer's variables: files read (the token, the PEMs), a systemd credential
// for the token, and each wrong variable named in a SIGNER_CONFIG error.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { SignerError } from '../../src/signers/gasSigner.ts'
import { readRemoteSignerOptions } from '../../src/signers/remote/index.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-remote-signer-env-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const pem = (label: string, body: string) => `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`
const files = {
  token: join(dir, 'token'),
  cert: join(dir, 'client.crt'),
  key: join(dir, 'client.key'),
  ca: join(dir, 'ca.crt'),
  notPem: join(dir, 'not.pem'),
  empty: join(dir, 'empty'),
}
writeFileSync(files.token, 'token-from-a-file\n')
writeFileSync(files.cert, pem('CERTIFICATE', 'Y2xpZW50'))
writeFileSync(files.key, pem('PRIVATE KEY', 'a2V5'))
writeFileSync(files.ca, pem('CERTIFICATE', 'Y2E='))
writeFileSync(files.notPem, 'hello')
writeFileSync(files.empty, '\n')
const credentials = join(dir, 'credentials')
mkdirSync(credentials)
writeFileSync(join(credentials, 'RELAYER_SIGNER_TOKEN_FILE'), 'token-from-systemd')

const base = { RELAYER_SIGNER_URL: 'https://signer.internal:9000', RELAYER_SIGNER_ADDRESS: devnetAccounts.relayer.address }

function configError(env: Record<string, string>): SignerError {
  try {
    readRemoteSignerOptions(env)
  } catch (error) {
    expect(error).toBeInstanceOf(SignerError)
    expect((error as SignerError).code).toBe('SIGNER_CONFIG')
    expect((error as SignerError).exitCode).toBe(2)
    return error as SignerError
  }
  throw new Error('readRemoteSignerOptions accepted the environment')
}

describe('read', () => {
  test('nothing without RELAYER_SIGNER_URL', () => {
    expect(readRemoteSignerOptions({ RELAYER_SIGNER_ADDRESS: devnetAccounts.relayer.address })).toBeUndefined()
  })

  test('the URL and address alone, with the default timeout', () => {
    expect(readRemoteSignerOptions(base)).toEqual({ url: base.RELAYER_SIGNER_URL, address: devnetAccounts.relayer.address, timeoutMs: 10_000 })
  })

  test('a token file, a client certificate with its key and a CA, a timeout', () => {
    expect(
      readRemoteSignerOptions({
        ...base,
        RELAYER_SIGNER_TOKEN_FILE: files.token,
        RELAYER_SIGNER_TLS_CERT: files.cert,
        RELAYER_SIGNER_TLS_KEY: files.key,
        RELAYER_SIGNER_TLS_CA: files.ca,
        RELAYER_SIGNER_TIMEOUT_MS: '2500',
      }),
    ).toEqual({
      url: base.RELAYER_SIGNER_URL,
      address: devnetAccounts.relayer.address,
      timeoutMs: 2500,
      token: 'token-from-a-file',
      tls: { cert: pem('CERTIFICATE', 'Y2xpZW50'), key: pem('PRIVATE KEY', 'a2V5'), ca: pem('CERTIFICATE', 'Y2E=') },
    })
  })

  test('a CA alone (a signer with a private CA, no client certificate)', () => {
    expect(readRemoteSignerOptions({ ...base, RELAYER_SIGNER_TLS_CA: files.ca })?.tls).toEqual({ ca: pem('CERTIFICATE', 'Y2E=') })
  })

  test("the token from systemd's credential; RELAYER_SIGNER_TOKEN_FILE wins over it", () => {
    expect(readRemoteSignerOptions({ ...base, CREDENTIALS_DIRECTORY: credentials })?.token).toBe('token-from-systemd')
    expect(readRemoteSignerOptions({ ...base, CREDENTIALS_DIRECTORY: credentials, RELAYER_SIGNER_TOKEN_FILE: files.token })?.token).toBe('token-from-a-file')
    expect(readRemoteSignerOptions({ ...base, CREDENTIALS_DIRECTORY: dir })?.token).toBeUndefined()
  })
})

describe('refused, naming the variable', () => {
  const missing = join(dir, 'missing')
  const cases: [string, Record<string, string>, string, string][] = [
    ['a URL that is not http(s)', { ...base, RELAYER_SIGNER_URL: 'ftp://signer' }, 'RELAYER_SIGNER_URL must be an http(s) URL', "set RELAYER_SIGNER_URL to the signer's JSON-RPC endpoint, such as https://signer.internal:9000"],
    ['no address', { RELAYER_SIGNER_URL: base.RELAYER_SIGNER_URL }, 'RELAYER_SIGNER_URL is set without RELAYER_SIGNER_ADDRESS', 'set RELAYER_SIGNER_ADDRESS to the account the signer signs the gas with'],
    ['a bad address', { ...base, RELAYER_SIGNER_ADDRESS: '0x1234' }, 'RELAYER_SIGNER_ADDRESS must be an address: 0x followed by 40 hex digits', 'set RELAYER_SIGNER_ADDRESS to the account the signer signs the gas with'],
    ['a missing token file', { ...base, RELAYER_SIGNER_TOKEN_FILE: missing }, `RELAYER_SIGNER_TOKEN_FILE names ${missing}, which does not exist`, 'point RELAYER_SIGNER_TOKEN_FILE at a file the relayer can read'],
    ['an empty token file', { ...base, RELAYER_SIGNER_TOKEN_FILE: files.empty }, `RELAYER_SIGNER_TOKEN_FILE names ${files.empty}, which is empty`, "write the signer's bearer token into that file"],
    ['a missing certificate', { ...base, RELAYER_SIGNER_TLS_CERT: missing, RELAYER_SIGNER_TLS_KEY: files.key }, `RELAYER_SIGNER_TLS_CERT names ${missing}, which does not exist`, 'point RELAYER_SIGNER_TLS_CERT at a file the relayer can read'],
    ['a key that is not PEM', { ...base, RELAYER_SIGNER_TLS_CERT: files.cert, RELAYER_SIGNER_TLS_KEY: files.notPem }, `RELAYER_SIGNER_TLS_KEY names ${files.notPem}, which is not a PEM file`, 'point RELAYER_SIGNER_TLS_KEY at a PEM file (-----BEGIN …)'],
    ['a missing CA', { ...base, RELAYER_SIGNER_TLS_CA: missing }, `RELAYER_SIGNER_TLS_CA names ${missing}, which does not exist`, 'point RELAYER_SIGNER_TLS_CA at a file the relayer can read'],
    ['a certificate without its key', { ...base, RELAYER_SIGNER_TLS_CERT: files.cert }, 'RELAYER_SIGNER_TLS_CERT is set without RELAYER_SIGNER_TLS_KEY', 'set both, the client certificate and its key (PEM files), or neither'],
    ['a key without its certificate', { ...base, RELAYER_SIGNER_TLS_KEY: files.key }, 'RELAYER_SIGNER_TLS_KEY is set without RELAYER_SIGNER_TLS_CERT', 'set both, the client certificate and its key (PEM files), or neither'],
    ['a bad timeout', { ...base, RELAYER_SIGNER_TIMEOUT_MS: '5s' }, 'RELAYER_SIGNER_TIMEOUT_MS must be an integer from 10 to 600000 (got "5s")', 'set RELAYER_SIGNER_TIMEOUT_MS to milliseconds, or leave it unset for 10000'],
  ]
  for (const [what, env, message, fix] of cases) {
    test(what, () => {
      const error = configError(env)
      expect(error.shortMessage).toBe(message)
      expect(error.fix).toBe(fix)
    })
  }

  test("a token file's contents never reach the message", () => {
    const twoLines = join(dir, 'two-lines')
    writeFileSync(twoLines, 'secret-line-one\nsecret-line-two\n')
    const error = configError({ ...base, RELAYER_SIGNER_TOKEN_FILE: twoLines })
    expect(error.shortMessage).toBe(`RELAYER_SIGNER_TOKEN_FILE names ${twoLines}, which holds more than one line`)
    expect(`${error.message} ${error.fix}`).not.toContain('secret-line')
  })
})
