import * as v from 'valibot'

const hex = (bytes: number | undefined, what: string) =>
  v.pipe(
    v.string(),
    v.regex(bytes === undefined ? /^(0x)?([0-9a-fA-F]{2})+$/ : new RegExp(`^(0x)?[0-9a-fA-F]{${bytes * 2}}$`), `${what} must be ${bytes === undefined ? 'hex bytes' : `${bytes} bytes of hex`}`),
  )
const positiveInteger = v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'))

/** `kdfparams` of `"kdf": "scrypt"`: the cost n (a power of two), block size r, parallelism p. */
export const ScryptParamsSchema = v.object({
  n: positiveInteger,
  r: positiveInteger,
  p: positiveInteger,
  dklen: positiveInteger,
  salt: hex(undefined, 'salt'),
})

/** `kdfparams` of `"kdf": "pbkdf2"`: the iteration count c and the PRF (only hmac-sha256 is defined). */
export const Pbkdf2ParamsSchema = v.object({
  c: positiveInteger,
  dklen: positiveInteger,
  prf: v.string(),
  salt: hex(undefined, 'salt'),
})

/**
 * The `crypto` object of a Web3 Secret Storage v3 file. `kdf` and `cipher` are plain
 * strings here so an unsupported one is named in its own message (kdf.ts, decrypt.ts)
 * rather than as a schema mismatch; `kdfparams` is checked against the KDF's schema there.
 */
export const KeystoreCryptoSchema = v.object({
  cipher: v.string(),
  cipherparams: v.object({ iv: hex(16, 'iv') }),
  ciphertext: hex(32, 'ciphertext'),
  kdf: v.string(),
  kdfparams: v.record(v.string(), v.unknown()),
  mac: hex(32, 'mac'),
})

/**
 * A Web3 Secret Storage v3 keystore as geth, Foundry's cast and this program write it
 * (`address` is optional: cast leaves it out). geth reads `Crypto` as well as `crypto`
 * (Go's JSON is case-insensitive), and files from old wallets carry it; both are taken.
 */
export const KeystoreSchema = v.pipe(
  v.looseObject({
    version: v.literal(3, 'version must be 3 (Web3 Secret Storage v3)'),
    id: v.optional(v.string()),
    address: v.optional(hex(20, 'address')),
    crypto: v.optional(KeystoreCryptoSchema),
    Crypto: v.optional(KeystoreCryptoSchema),
  }),
  v.check((file) => file.crypto !== undefined || file.Crypto !== undefined, 'crypto is missing'),
  v.transform((file) => ({ id: file.id, address: file.address, crypto: (file.crypto ?? file.Crypto)! })),
)

export type KeystoreCrypto = v.InferOutput<typeof KeystoreCryptoSchema>

/** A keystore as this program writes it (encrypt.ts), in the field order geth uses. */
export type KeystoreV3 = {
  address: string
  crypto: {
    cipher: 'aes-128-ctr'
    ciphertext: string
    cipherparams: { iv: string }
    kdf: 'scrypt' | 'pbkdf2'
    kdfparams: { dklen: number; n: number; p: number; r: number; salt: string } | { c: number; dklen: number; prf: 'hmac-sha256'; salt: string }
    mac: string
  }
  id: string
  version: 3
}
