import { pbkdf2Async } from '@noble/hashes/pbkdf2'
import { scryptAsync } from '@noble/hashes/scrypt'
import { sha256 } from '@noble/hashes/sha2'
import { hexToBytes } from '@noble/hashes/utils'
import * as v from 'valibot'
import { issueList, Pbkdf2ParamsSchema, ScryptParamsSchema } from './keystoreSchema.ts'

/**
 * The most memory scrypt may take (128 · n · r bytes): 1 GiB. geth's "standard" scrypt
 * (n = 2^18, r = 8) takes 256 MiB; a file asking for far more would exhaust the machine
 * before its MAC could be checked.
 */
const maxScryptBytes = 1024 * 1024 * 1024
/** The most PBKDF2 iterations accepted (geth writes 262,144). */
const maxPbkdf2Rounds = 10_000_000

/**
 * The key derived from the password by the file's KDF: scrypt or PBKDF2-HMAC-SHA256,
 * with @noble/hashes (audited, maintained), asynchronously (geth's scrypt parameters take
 * about a second in JavaScript).
 * `refuse` says why it cannot run (another KDF, parameters past the bounds above) and throws.
 */
export async function deriveKey(kdf: string, params: Record<string, unknown>, password: string, refuse: (problem: string) => never): Promise<Uint8Array> {
  const secret = new TextEncoder().encode(password.normalize('NFKC'))
  if (kdf === 'scrypt') {
    const parsed = v.safeParse(ScryptParamsSchema, params)
    if (!parsed.success) refuse(`its scrypt parameters are not valid (${issueList(parsed.issues)})`)
    const { n, r, p, dklen, salt } = parsed.output
    if ((n & (n - 1)) !== 0 || n < 2) refuse(`its scrypt n (${n}) is not a power of two`)
    if (128 * n * r > maxScryptBytes || p > 16 || dklen < 32 || dklen > 64) {
      refuse(`its scrypt parameters (n=${n}, r=${r}, p=${p}, dklen=${dklen}) ask for more than this relayer allows (128·n·r at most 1 GiB, p at most 16, dklen 32 to 64)`)
    }
    return scryptAsync(secret, hexToBytes(salt), { N: n, r, p, dkLen: dklen, maxmem: maxScryptBytes + 1024 })
  }
  if (kdf === 'pbkdf2') {
    const parsed = v.safeParse(Pbkdf2ParamsSchema, params)
    if (!parsed.success) refuse(`its pbkdf2 parameters are not valid (${issueList(parsed.issues)})`)
    const { c, dklen, salt } = parsed.output
    if (c > maxPbkdf2Rounds || dklen < 32 || dklen > 64) refuse(`its pbkdf2 parameters (c=${c}, dklen=${dklen}) are out of bounds (c at most ${maxPbkdf2Rounds}, dklen 32 to 64)`)
    return pbkdf2Async(sha256, secret, hexToBytes(salt), { c, dkLen: dklen })
  }
  refuse(`its KDF ${JSON.stringify(kdf.slice(0, 40))} is not supported (scrypt or pbkdf2)`)
}
