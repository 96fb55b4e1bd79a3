// The gas key in a signer outside the process (Web3Signer, Clef), over JSON-RPC.
export { createRemoteSigner, type RemoteSignerOptions } from './createRemoteSigner.ts'
export { readRemoteSignerOptions } from './readRemoteSignerOptions.ts'
export type { RemoteSignerTls } from './jsonRpc.ts'
