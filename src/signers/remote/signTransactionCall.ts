import type { Address, Hex, TransactionSerializableEIP1559 } from 'viem'
import { numberToHex } from 'viem'
import * as v from 'valibot'
import { type JsonRpcConnection, JsonRpcFailure, jsonRpcCall } from './jsonRpc.ts'
import type { SignerDialect } from './signerAccounts.ts'

/**
 * The tx as the signer is asked to sign it: every quantity a hex number, the calldata as
 * both `data` and `input` (Clef requires them equal when both are set; others read
 * one), `type: 0x2` and the chain id (Web3Signer signs with its configured chain id and
 * ignores it; the check after signing catches a mismatch). A field the tx leaves out is
 * asked as 0 or empty, as its encoding would have it.
 *
 * @example
 * signRequest(address, { type: 'eip1559', chainId: 1, nonce: 6, gas: 21000n }, 1) // { from, gas: '0x5208', nonce: '0x6', … }
 */
export function signRequest(from: Address, tx: TransactionSerializableEIP1559, chainId: number) {
  const data = tx.data ?? '0x'
  return {
    from,
    ...(tx.to ? { to: tx.to } : {}),
    gas: numberToHex(tx.gas ?? 0n),
    maxFeePerGas: numberToHex(tx.maxFeePerGas ?? 0n),
    maxPriorityFeePerGas: numberToHex(tx.maxPriorityFeePerGas ?? 0n),
    nonce: numberToHex(tx.nonce ?? 0),
    value: numberToHex(tx.value ?? 0n),
    data,
    input: data,
    chainId: numberToHex(tx.chainId ?? chainId),
    type: '0x2',
  }
}

// A raw tx (anvil, Web3Signer, geth) or `{ raw, tx }` (Clef).
const signedSchema = v.union([v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]+$/)), v.object({ raw: v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]+$/)) })])

/**
 * Asks the signer to sign: `eth_signTransaction`, or Clef's `account_signTransaction`
 * for a signer of Clef's dialect. Returns the raw signed tx as the signer sent it,
 * unchecked (checkSignedTx checks it).
 * @throws JsonRpcFailure
 *
 * @example
 * const raw = await signTransactionCall(connection, 'eth', signRequest(address, tx, chainId))
 */
export async function signTransactionCall(connection: JsonRpcConnection, dialect: SignerDialect, request: ReturnType<typeof signRequest>): Promise<Hex> {
  const result = await jsonRpcCall(connection, dialect === 'clef' ? 'account_signTransaction' : 'eth_signTransaction', [request])
  const signed = v.safeParse(signedSchema, result)
  if (!signed.success) throw new JsonRpcFailure('malformed', 'a result that is neither a raw signed tx nor { raw }')
  return (typeof signed.output === 'string' ? signed.output : signed.output.raw) as Hex
}
