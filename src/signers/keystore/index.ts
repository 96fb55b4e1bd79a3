// Web3 Secret Storage v3 keystores (geth, Foundry's cast): the gas key encrypted at rest,
// decrypted once at start with a password from a file or a systemd credential.
export { decryptKeystore } from './decrypt.ts'
export { DEFAULT_KDF_PARAMS, encryptKeystore } from './encrypt.ts'
export { KDF_LIMITS } from './kdf.ts'
export { openKeystoreSigner } from './openKeystoreSigner.ts'
export { PASSWORD_CREDENTIAL, readKeystorePassword } from './readPassword.ts'
export type { KeystoreV3 } from './schema.ts'
