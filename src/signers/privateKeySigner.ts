import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { GasSigner } from './gasSigner.ts'

/**
 * A gas key held in memory: RELAYER_PK, or a keystore once decrypted (`kind` says which,
 * `description` which file). Signs with viem's local account; `takePrivateKey` hands the
 * key to the signer thread once.
 *
 * @example
 * const signer = privateKeySigner(key, { kind: 'private-key', description: 'RELAYER_PK' })
 */
export function privateKeySigner(privateKey: Hex, options: { kind: 'private-key' | 'keystore'; description: string }): GasSigner {
  const account = privateKeyToAccount(privateKey)
  let key: Hex | undefined = privateKey
  return {
    kind: options.kind,
    address: account.address,
    description: options.description,
    signTransaction: (tx) => account.signTransaction(tx),
    takePrivateKey() {
      const taken = key
      key = undefined
      return taken
    },
  }
}
