// Encrypted keystores (Web3 Secret Storage v3) for the gas key.
export { decryptKeystore } from './decryptKeystore.ts'
export { encryptKeystore } from './encryptKeystore.ts'
export { type KeystoreFile } from './keystoreSchema.ts'
export { openKeystoreSigner } from './openKeystoreSigner.ts'
export { readKeystorePassword } from './readKeystorePassword.ts'
