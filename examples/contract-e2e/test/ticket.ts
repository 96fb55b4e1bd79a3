// What both test files share: the adapter as forge built it, its price and its params.
import { fileURLToPath } from 'node:url'
import { encodeAbiParameters, type Hex } from 'viem'

/** forge's artifact of src/TicketAdapter.sol (`npm run build`). */
export const artifact = fileURLToPath(new URL('../out/TicketAdapter.sol/TicketAdapter.json', import.meta.url))

/** A seat costs 10 USDC (6 decimals) of the devnet's pay token, paid to the devnet's payee. */
export const price = 10_000_000n
export const seats = 2n

/** The adapter for `startDevnet`: constructor(broker, token, seller, price, seats), addresses by the devnet's names. */
export const ticketAdapter = { artifact, args: ['broker', 'payToken', 'payee', price, seats] }

/** `params` for seat `n`: `abi.encode(uint256 seat)`. */
export const seat = (n: bigint): Hex => encodeAbiParameters([{ type: 'uint256' }], [n])
