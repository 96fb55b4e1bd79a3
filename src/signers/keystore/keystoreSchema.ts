import * as v from 'valibot'

const hex = (what: string, bytes?: number) =>
  v.pipe(
    v.string(`${what} must be a hex string`),
    v.transform((value) => value.replace(/^0x/i, '').toLowerCase()),
    v.regex(bytes === undefined ? /^([0-9a-f]{2})+$/ : new RegExp(`^[0-9a-f]{${bytes * 2}}$`), `${what} must be ${bytes === undefined ? 'hex bytes' : `${bytes} bytes of hex`}`),
  )

const count = (what: string) => v.pipe(v.number(`${what} must be a number`), v.integer(`${what} must be a whole number`), v.minValue(1, `${what} must be at least 1`))

/** scrypt's parameters as geth and cast write them. */
export const ScryptParamsSchema = v.object({ dklen: count('kdfparams.dklen'), n: count('kdfparams.n'), r: count('kdfparams.r'), p: count('kdfparams.p'), salt: hex('kdfparams.salt') })
/** PBKDF2's parameters (HMAC-SHA256 is the one PRF the format defines). */
export const Pbkdf2ParamsSchema = v.object({ dklen: count('kdfparams.dklen'), c: count('kdfparams.c'), prf: v.literal('hmac-sha256', 'kdfparams.prf must be hmac-sha256'), salt: hex('kdfparams.salt') })

/** The `crypto` section of a Web3 Secret Storage v3 file (geth writes `crypto`, some tools `Crypto`). */
export const KeystoreCryptoSchema = v.object({
  cipher: v.string('crypto.cipher must be a string'),
  cipherparams: v.object({ iv: hex('crypto.cipherparams.iv', 16) }),
  ciphertext: hex('crypto.ciphertext', 32),
  kdf: v.string('crypto.kdf must be a string'),
  kdfparams: v.record(v.string(), v.unknown()),
  mac: hex('crypto.mac', 32),
})

/** A Web3 Secret Storage v3 file: what `cast wallet new`/`import`, geth and `order-relay key` write. */
export const KeystoreFileSchema = v.object({
  version: v.literal(3, 'version must be 3 (Web3 Secret Storage v3)'),
  id: v.optional(v.string()),
  address: v.optional(v.string()),
  crypto: v.optional(KeystoreCryptoSchema),
  Crypto: v.optional(KeystoreCryptoSchema),
})

export type KeystoreFile = v.InferOutput<typeof KeystoreFileSchema>
export type KeystoreCrypto = v.InferOutput<typeof KeystoreCryptoSchema>

/** The schema's own messages for what is wrong (each names the field, never a secret). */
export const issueList = (issues: readonly v.BaseIssue<unknown>[]): string => [...new Set(issues.map((issue) => issue.message))].join('; ')
