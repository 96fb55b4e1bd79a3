import * as v from 'valibot'
import { BlockNotFoundError, createPublicClient, decodeFunctionData, type Hex, http } from 'viem'
import { lienRegistryAbi } from '../chain/index.ts'
import { decodeIsEncumbered } from './call.ts'
import { McpError, isMissingState, rpcOrigin, toRpcError, withRpc } from './errors.ts'
import { type Receipt, ReceiptSchema } from './receipt.ts'

/** One comparison: `match`, `mismatch`, or `not-checked` (it could not be run, see the verdict). */
export type ReceiptCheck = {
  status: 'match' | 'mismatch' | 'not-checked'
  /** What the receipt says. */
  expected: string
  /** What the node (or, for `answer`, the receipt's own request and result) says; null when unknown. */
  actual: string | null
}

export type VerifyReceiptReturnType = {
  /** True only when every check matches. */
  match: boolean
  /** `needs-archive-node`: chain and block match, but the node has no state for that block to replay the call. */
  verdict: 'match' | 'mismatch' | 'needs-archive-node'
  /** One line for a person. */
  message: string
  checks: {
    /** eth_chainId of the node against the receipt's chainId. */
    chainId: ReceiptCheck
    /** The node's hash of block `blockNumber` against the receipt's blockHash. */
    blockHash: ReceiptCheck
    /** The replayed eth_call (pinned by blockHash) against the receipt's raw result. */
    result: ReceiptCheck
    /** The receipt's decoded answer against its own request and raw result (catches an edited answer). */
    answer: ReceiptCheck
  }
}

/** McpError codes: INVALID_RECEIPT, RPC_UNREACHABLE, RPC_ERROR. */
export type VerifyReceiptErrorType = McpError

export type VerifyReceiptOptions = {
  /** Per-request timeout against the node (default 10 s). */
  timeoutMs?: number
}

/** Validates a receipt read from JSON; the error names the first bad field. */
export function parseReceipt(input: unknown): Receipt {
  const parsed = v.safeParse(ReceiptSchema, input)
  if (parsed.success) return parsed.output
  const issue = parsed.issues[0]
  const where = issue?.path?.map((item) => String(item.key)).join('.') || 'receipt'
  const problem = issue?.input === undefined && where !== 'receipt' ? 'is missing' : `is invalid (expected ${issue?.expected ?? 'a valid value'})`
  throw new McpError('INVALID_RECEIPT', `not an is_encumbered receipt: ${where} ${problem}`)
}

const check = (expected: string, actual: string | null): ReceiptCheck => ({
  status: actual !== null && actual.toLowerCase() === expected.toLowerCase() ? 'match' : 'mismatch',
  expected,
  actual,
})
const notChecked = (expected: string): ReceiptCheck => ({ status: 'not-checked', expected, actual: null })

/** What a receipt claims, and what its own request and raw result say, in the same words. */
function answerCheck(receipt: Receipt): ReceiptCheck {
  const claim = (to: string, lienId: string, answer: string) => `isEncumbered(${lienId}) on ${to} = ${answer}`
  const expected = claim(receipt.registry, receipt.decoded.lienId, String(receipt.decoded.encumbered))
  let lienId: string
  try {
    const call = decodeFunctionData({ abi: lienRegistryAbi, data: receipt.request.data as Hex })
    if (call.functionName !== 'isEncumbered') return check(expected, `request.data calls ${call.functionName}, not isEncumbered`)
    lienId = call.args[0]
  } catch {
    return check(expected, 'request.data is not an isEncumbered(bytes32) call')
  }
  const answer = decodeIsEncumbered(receipt.result as Hex)
  return check(expected, claim(receipt.request.to, lienId, answer === undefined ? `undecodable ${receipt.result}` : String(answer)))
}

/**
 * Replays an `is_encumbered` receipt on any node and says whether it holds: the
 * node's chain id, its hash of the receipt's block, and the `eth_call` run at that
 * block by hash (EIP-1898 `{blockHash, requireCanonical: true}`) must all equal the
 * receipt's, and the receipt's decoded answer must be what its request and result
 * say. A node without state for that block yields `needs-archive-node`, not a
 * mismatch; an unreachable node throws McpError `RPC_UNREACHABLE`.
 *
 * @example
 * import { verifyReceipt } from 'order-relay/mcp'
 * const outcome = await verifyReceipt(receipt, 'https://sepolia-rollup.arbitrum.io/rpc')
 * outcome.match // true
 */
export async function verifyReceipt(receipt: Receipt, rpcUrl: string, options: VerifyReceiptOptions = {}): Promise<VerifyReceiptReturnType> {
  const parsed = parseReceipt(receipt)
  const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 1, timeout: options.timeoutMs ?? 10_000 }) })
  const rpc = <T>(doing: string, run: () => Promise<T>) => withRpc(rpcUrl, doing, run)

  const answer = answerCheck(parsed)
  const chainId = check(String(parsed.chainId), String(await rpc('reading eth_chainId', () => client.getChainId())))

  const blockNumber = BigInt(parsed.blockNumber)
  const nodeBlockHash = await rpc(`reading block ${blockNumber}`, async () => {
    try {
      return (await client.getBlock({ blockNumber })).hash
    } catch (error) {
      if (error instanceof BlockNotFoundError) return null
      throw error
    }
  })
  const blockHash = check(parsed.blockHash, nodeBlockHash)

  let result = notChecked(parsed.result)
  let archiveNeeded = false
  if (chainId.status === 'match' && blockHash.status === 'match') {
    try {
      const replayed = await client.request({
        method: 'eth_call',
        params: [{ to: parsed.request.to as Hex, data: parsed.request.data as Hex }, { blockHash: parsed.blockHash as Hex, requireCanonical: true }],
      })
      result = check(parsed.result, replayed)
    } catch (error) {
      if (!isMissingState(error)) throw toRpcError(error, rpcUrl, `replaying the call at block ${blockNumber}`)
      archiveNeeded = true
    }
  }

  const checks = { chainId, blockHash, result, answer }
  const differing = [
    chainId.status === 'mismatch' && `chain id (receipt ${chainId.expected}, node ${chainId.actual})`,
    blockHash.status === 'mismatch' &&
      `block hash of block ${blockNumber} (receipt ${blockHash.expected}, node ${blockHash.actual ?? 'has no such block'})`,
    result.status === 'mismatch' && `result (receipt ${result.expected}, node ${result.actual})`,
    answer.status === 'mismatch' && `decoded answer (receipt says ${answer.expected}; its request and result say ${answer.actual})`,
  ].filter((part): part is string => typeof part === 'string')

  if (differing.length > 0) {
    return { match: false, verdict: 'mismatch', message: `receipt does not verify against ${rpcOrigin(rpcUrl)}: ${differing.join('; ')} differ`, checks }
  }
  if (archiveNeeded) {
    return {
      match: false,
      verdict: 'needs-archive-node',
      message: `cannot replay at ${rpcOrigin(rpcUrl)}: chain id and block hash match, but the node has no state for block ${blockNumber}; this needs an archive node`,
      checks,
    }
  }
  return {
    match: true,
    verdict: 'match',
    message: `receipt verified against ${rpcOrigin(rpcUrl)}: chain ${parsed.chainId}, block ${blockNumber} (${parsed.blockHash}): isEncumbered(${parsed.decoded.lienId}) = ${parsed.decoded.encumbered}`,
    checks,
  }
}
