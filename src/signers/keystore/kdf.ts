import { pbkdf2Async } from '@noble/hashes/pbkdf2'
import { scryptAsync } from '@noble/hashes/scrypt'
import { sha256 } from '@noble/hashes/sha2'
import { fieldBytes } from './hexBytes.ts'
import * as v from 'valibot'
import { keystoreError } from './keystoreError.ts'
import { Pbkdf2ParamsSchema, ScryptParamsSchema } from './schema.ts'

/**
 * Bounds on a file's KDF cost, so a keystore cannot make the relayer exhaust memory or
 * spin for hours at start. scrypt takes 128·r·n bytes: geth's and this program's
 * default (n = 2^18, r = 8) is 256 MiB, geth's "light" 4 MiB, cast's 8 MiB; the limit
 * is 1 GiB. p runs sequentially here, so it multiplies time, not memory.
 */
export const KDF_LIMITS = { scryptMaxN: 2 ** 20, scryptMaxR: 32, scryptMaxP: 16, scryptMaxMemory: 2 ** 30, pbkdf2MaxC: 10_000_000, dklenMin: 32, dklenMax: 64 }

const saltBytes = fieldBytes

const issues = (result: v.SafeParseResult<v.GenericSchema>) =>
  result.success ? '' : result.issues.map((issue) => `${v.getDotPath(issue) ?? '?'} ${issue.message}`).join('; ')

/**
 * The derived key of a keystore's `kdf` and `kdfparams` for `password` (UTF-8 bytes,
 * as geth and cast take it). scrypt and pbkdf2 (hmac-sha256) from @noble/hashes; any
 * other KDF, or a cost above KDF_LIMITS, is a SIGNER_CONFIG error naming the file.
 *
 * @example
 * const derived = await deriveKey('scrypt', { n: 8192, r: 8, p: 1, dklen: 32, salt: 'ab…' }, 'pw', 'key.json')
 */
export async function deriveKey(kdf: string, params: Record<string, unknown>, password: string, path: string): Promise<Uint8Array> {
  const secret = new TextEncoder().encode(password)
  const rewrite = 'write the keystore again with `order-relay key import` (or `cast wallet import`)'
  if (kdf === 'scrypt') {
    const parsed = v.safeParse(ScryptParamsSchema, params)
    if (!parsed.success) throw keystoreError(path, `scrypt kdfparams are invalid: ${issues(parsed)}`, rewrite)
    const { n, r, p, dklen, salt } = parsed.output
    if ((n & (n - 1)) !== 0 || n < 2) throw keystoreError(path, `scrypt n = ${n} is not a power of two`, rewrite)
    if (n > KDF_LIMITS.scryptMaxN || r > KDF_LIMITS.scryptMaxR || p > KDF_LIMITS.scryptMaxP || 128 * r * n > KDF_LIMITS.scryptMaxMemory) {
      throw keystoreError(
        path,
        `scrypt n = ${n}, r = ${r}, p = ${p} exceed the limits (n ≤ 2^20, r ≤ ${KDF_LIMITS.scryptMaxR}, p ≤ ${KDF_LIMITS.scryptMaxP}, 128·r·n ≤ 1 GiB of memory)`,
        `${rewrite}, which uses n = 2^18, r = 8, p = 1`,
      )
    }
    checkDklen(dklen, path, rewrite)
    return scryptAsync(secret, saltBytes(salt), { N: n, r, p, dkLen: dklen, maxmem: KDF_LIMITS.scryptMaxMemory + 128 * r * p + 1024 })
  }
  if (kdf === 'pbkdf2') {
    const parsed = v.safeParse(Pbkdf2ParamsSchema, params)
    if (!parsed.success) throw keystoreError(path, `pbkdf2 kdfparams are invalid: ${issues(parsed)}`, rewrite)
    const { c, dklen, prf, salt } = parsed.output
    if (prf !== 'hmac-sha256') throw keystoreError(path, `pbkdf2 prf ${JSON.stringify(prf.slice(0, 40))} is not supported (only hmac-sha256)`, rewrite)
    if (c > KDF_LIMITS.pbkdf2MaxC) throw keystoreError(path, `pbkdf2 c = ${c} exceeds the limit (${KDF_LIMITS.pbkdf2MaxC})`, `${rewrite}, which uses scrypt`)
    checkDklen(dklen, path, rewrite)
    return pbkdf2Async(sha256, secret, saltBytes(salt), { c, dkLen: dklen })
  }
  throw keystoreError(path, `kdf ${JSON.stringify(kdf.slice(0, 40))} is not supported (supported: scrypt, pbkdf2)`, rewrite)
}

function checkDklen(dklen: number, path: string, rewrite: string) {
  // The first 16 bytes are the AES-128 key, the next 16 go into the MAC.
  if (dklen < KDF_LIMITS.dklenMin || dklen > KDF_LIMITS.dklenMax) throw keystoreError(path, `kdfparams dklen = ${dklen} is not supported (32 to 64)`, rewrite)
}
