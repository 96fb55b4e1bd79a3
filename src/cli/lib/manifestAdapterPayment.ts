import type { Abi, Address, PublicClient } from 'viem'
import type { ManifestAdapter } from '../../chain/index.ts'
import { CommandError, UsageError } from '../command.ts'
import type { Payment } from './buildOrderParams.ts'

/**
 * What an adapter of the manifest's own (`devnet --adapter`) asks to be paid, read from
 * its `defaultPayment()` view (IAdapterPayment) when its ABI has one; without it the
 * order needs `--amount` and `--payee`.
 */
export async function manifestAdapterPayment(adapter: ManifestAdapter, client: PublicClient): Promise<Payment> {
  const abi = adapter.abi as Abi
  checkPriced(adapter)
  let answer: unknown
  try {
    answer = await client.readContract({ address: adapter.address as Address, abi, functionName: 'defaultPayment' })
  } catch {
    throw new CommandError(`cannot read ${adapter.name}'s defaultPayment() from the chain: check the RPC is up and the manifest's contracts are deployed there, or pass --amount and --payee`)
  }
  // (token, payee, price) as three outputs, or one struct with those fields.
  const [token, payee, price] = Array.isArray(answer) ? answer : [(answer as Payment)?.token, (answer as Payment)?.payee, (answer as Payment)?.price]
  if (typeof token !== 'string' || typeof payee !== 'string' || typeof price !== 'bigint') {
    throw new UsageError(`${adapter.name}'s defaultPayment() does not return (address token, address payee, uint256 price): pass --amount UNITS and --payee ADDR`)
  }
  return { token: token as Address, payee: payee as Address, price }
}

/** Whether the adapter's ABI has a `defaultPayment()` view the price can be read from. */
export function hasDefaultPayment(adapter: ManifestAdapter): boolean {
  return (adapter.abi as Abi).some((item) => item.type === 'function' && item.name === 'defaultPayment' && item.inputs.length === 0)
}

/** A usage error, before anything is contacted, when the price cannot be read and was not given. */
export function checkPriced(adapter: ManifestAdapter): void {
  if (!hasDefaultPayment(adapter)) {
    throw new UsageError(`${adapter.name} has no defaultPayment() view to read its price from: pass --amount UNITS and --payee ADDR (what its grant checks)`)
  }
}
