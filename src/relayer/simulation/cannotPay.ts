import { errorText } from '../rpcErrors.ts'

/** The node refused a call because the key cannot pay gas × maxFeePerGas. */
export const cannotPay = (error: unknown): boolean => /insufficient funds|insufficient balance/i.test(errorText(error))
