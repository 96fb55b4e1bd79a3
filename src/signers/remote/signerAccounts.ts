import * as v from 'valibot'
import { type JsonRpcConnection, JsonRpcFailure, jsonRpcCall, methodNotFound } from './jsonRpc.ts'

const accountsSchema = v.array(v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/)))

/** Which method names the signer answers: the `eth_` ones (Web3Signer, anvil, geth) or Clef's `account_` ones. */
export type SignerDialect = 'eth' | 'clef'

/**
 * The accounts the signer holds, lower-case, and its dialect: `eth_accounts`, else
 * Clef's `account_list` when the signer does not know `eth_accounts`.
 * @throws JsonRpcFailure
 *
 * @example
 * const { accounts, dialect } = await signerAccounts({ url, timeoutMs: 5000 })
 */
export async function signerAccounts(connection: JsonRpcConnection): Promise<{ accounts: string[]; dialect: SignerDialect }> {
  let result: unknown
  let dialect: SignerDialect = 'eth'
  try {
    result = await jsonRpcCall(connection, 'eth_accounts', [])
  } catch (error) {
    if (!(error instanceof JsonRpcFailure && error.extra.rpcCode === methodNotFound)) throw error
    dialect = 'clef'
    result = await jsonRpcCall(connection, 'account_list', [])
  }
  const accounts = v.safeParse(accountsSchema, result)
  if (!accounts.success) throw new JsonRpcFailure('malformed', 'an account list that is not a list of addresses')
  return { accounts: accounts.output.map((account) => account.toLowerCase()), dialect }
}
