// The gas key's signers: one port (GasSigner), four sources.
export { type GasSigner, type GasSignerKind, SignerError, type SignerErrorCode } from './gasSigner.ts'
export { checkSignedTx, type SignedTxFault, signedTxFault } from './checkSignedTx.ts'
export { privateKeySigner } from './privateKeySigner.ts'
export { keySourceOf, keySourceVariables, type KeySourceVariable } from './keySource.ts'
