import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isAddress } from 'viem'
import type { Address } from 'viem'
import type { Env } from '../../shared/index.ts'
import { SignerError } from '../gasSigner.ts'
import type { RemoteSignerOptions } from './createRemoteSigner.ts'

/** RELAYER_SIGNER_TIMEOUT_MS when unset (the relayer's own default for a signer service). */
const defaultTimeoutMs = 10_000

/**
 * The remote signer's options from the environment, or undefined when RELAYER_SIGNER_URL
 * is not set: RELAYER_SIGNER_ADDRESS; the bearer token from the file RELAYER_SIGNER_TOKEN_FILE
 * names, or from the systemd credential of that name (`$CREDENTIALS_DIRECTORY/RELAYER_SIGNER_TOKEN_FILE`);
 * the client certificate, its key and the signer's CA from the PEM files
 * RELAYER_SIGNER_TLS_CERT, RELAYER_SIGNER_TLS_KEY and RELAYER_SIGNER_TLS_CA;
 * RELAYER_SIGNER_TIMEOUT_MS. A token is never read from a variable's value. The chain id
 * and the logger are the relayer's to add.
 * @throws SignerError SIGNER_CONFIG naming the variable (and the file) that is wrong.
 *
 * @example
 * const options = readRemoteSignerOptions(process.env)
 * if (options) signer = await createRemoteSigner({ ...options, chainId, logger })
 */
export function readRemoteSignerOptions(env: Env): Omit<RemoteSignerOptions, 'chainId' | 'logger'> | undefined {
  const url = env.RELAYER_SIGNER_URL
  if (!url) return undefined
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw config('RELAYER_SIGNER_URL must be an http(s) URL', 'set RELAYER_SIGNER_URL to the signer\'s JSON-RPC endpoint, such as https://signer.internal:9000')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw config('RELAYER_SIGNER_URL must be an http(s) URL', 'set RELAYER_SIGNER_URL to the signer\'s JSON-RPC endpoint, such as https://signer.internal:9000')
  }
  const address = env.RELAYER_SIGNER_ADDRESS
  if (!address) throw config('RELAYER_SIGNER_URL is set without RELAYER_SIGNER_ADDRESS', 'set RELAYER_SIGNER_ADDRESS to the account the signer signs the gas with')
  if (!isAddress(address, { strict: false })) throw config('RELAYER_SIGNER_ADDRESS must be an address: 0x followed by 40 hex digits', 'set RELAYER_SIGNER_ADDRESS to the account the signer signs the gas with')

  const token = readToken(env)
  const certPath = env.RELAYER_SIGNER_TLS_CERT
  const keyPath = env.RELAYER_SIGNER_TLS_KEY
  if (Boolean(certPath) !== Boolean(keyPath)) {
    throw config(`${certPath ? 'RELAYER_SIGNER_TLS_CERT' : 'RELAYER_SIGNER_TLS_KEY'} is set without ${certPath ? 'RELAYER_SIGNER_TLS_KEY' : 'RELAYER_SIGNER_TLS_CERT'}`, 'set both, the client certificate and its key (PEM files), or neither')
  }
  const caPath = env.RELAYER_SIGNER_TLS_CA
  const ca = caPath ? readPem('RELAYER_SIGNER_TLS_CA', caPath) : undefined
  const clientCertificate = certPath && keyPath ? { cert: readPem('RELAYER_SIGNER_TLS_CERT', certPath), key: readPem('RELAYER_SIGNER_TLS_KEY', keyPath) } : undefined
  const tls = clientCertificate || ca ? { ...clientCertificate, ...(ca ? { ca } : {}) } : undefined

  return {
    url,
    address: address as Address,
    timeoutMs: readTimeout(env.RELAYER_SIGNER_TIMEOUT_MS),
    ...(token ? { token } : {}),
    ...(tls ? { tls } : {}),
  }
}

function config(message: string, fix: string): SignerError {
  return new SignerError('SIGNER_CONFIG', message, { fix })
}

function readTimeout(raw: string | undefined): number {
  if (raw === undefined || raw === '') return defaultTimeoutMs
  if (!/^\d+$/.test(raw) || Number(raw) < 10 || Number(raw) > 600_000) {
    throw config(`RELAYER_SIGNER_TIMEOUT_MS must be an integer from 10 to 600000 (got ${JSON.stringify(raw.slice(0, 40))})`, 'set RELAYER_SIGNER_TIMEOUT_MS to milliseconds, or leave it unset for 10000')
  }
  return Number(raw)
}

/** The token from RELAYER_SIGNER_TOKEN_FILE's file, else from the systemd credential of that name; undefined without either. */
function readToken(env: Env): string | undefined {
  const variable = 'RELAYER_SIGNER_TOKEN_FILE'
  const path = env[variable] || credentialPath(env, variable)
  if (!path) return undefined
  const token = readFile(variable, path).trim()
  if (!token) throw config(`${variable} names ${path}, which is empty`, 'write the signer\'s bearer token into that file')
  if (/[\r\n]/.test(token)) throw config(`${variable} names ${path}, which holds more than one line`, 'write only the signer\'s bearer token into that file')
  return token
}

function credentialPath(env: Env, name: string): string | undefined {
  const directory = env.CREDENTIALS_DIRECTORY
  if (!directory) return undefined
  const path = join(directory, name)
  return existsSync(path) ? path : undefined
}

function readPem(variable: string, path: string): string {
  const pem = readFile(variable, path)
  if (!pem.includes('-----BEGIN ')) throw config(`${variable} names ${path}, which is not a PEM file`, `point ${variable} at a PEM file (-----BEGIN …)`)
  return pem
}

function readFile(variable: string, path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'which does not exist' : 'which cannot be read'
    throw config(`${variable} names ${path}, ${why}`, `point ${variable} at a file the relayer can read`)
  }
}
