import { readFileSync } from 'node:fs'
import { McpError } from '../../mcp/errors.ts'
import { parseReceipt, type ReceiptCheck, verifyReceipt } from '../../mcp/verifyReceipt.ts'
import { type Command, CommandError, httpUrlFlag, parseFlags, UsageError } from '../command.ts'

/**
 * Reads a receipt file: the receipt itself, or a whole `is_encumbered` answer
 * `{encumbered, receipt}`. A missing, unreadable or malformed file is a usage error
 * (exit 2), so exit 1 always means "did not verify".
 */
function readReceiptFile(path: string) {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new UsageError(`${path} is not valid JSON`)
  }
  const answer = typeof json === 'object' && json !== null && 'receipt' in json ? (json as { encumbered?: unknown; receipt: unknown }) : undefined
  let receipt: ReturnType<typeof parseReceipt>
  try {
    receipt = parseReceipt(answer ? answer.receipt : json)
  } catch (error) {
    if (error instanceof McpError) throw new UsageError(`${path}: ${error.message}`)
    throw error
  }
  if (answer && 'encumbered' in answer && answer.encumbered !== receipt.decoded.encumbered) {
    throw new CommandError(`${path} says encumbered ${String(answer.encumbered)} but its receipt says ${receipt.decoded.encumbered}`)
  }
  return receipt
}

/** Who stands against the receipt in a check: the node, or (for the answer) the receipt's own request and result. */
const otherSide = (name: string) => (name === 'answer' ? 'its request and result say' : 'node says')

/** One check: on a mismatch, what each side says ("receipt says …, node says …"). */
const line = (name: string, check: ReceiptCheck) =>
  `  ${name.padEnd(10)} ${check.status.padEnd(11)} ${
    check.status === 'mismatch' ? `receipt says ${check.expected}, ${otherSide(name)} ${check.actual ?? 'nothing (no such block)'}` : check.expected
  }`

export const verifyReceiptCommand: Command = {
  name: 'verify-receipt',
  summary: 'replay an is_encumbered receipt on any node (exit 0 only when it matches)',
  usage: 'FILE --rpc URL [options]',
  arguments: ['FILE             the receipt JSON (or the whole is_encumbered answer) to verify'],
  options: [
    '--rpc URL        the node to replay it on (required; an archive node for old blocks)',
    '--json           print the outcome as JSON',
  ],
  environment: [],
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { rpc: { type: 'string' }, json: { type: 'boolean' } }, true)
    if (positionals.length !== 1) throw new UsageError('give exactly one receipt FILE')
    if (!values.rpc) throw new UsageError('--rpc URL is required: the node to replay the receipt on')
    httpUrlFlag('rpc', values.rpc)
    const receipt = readReceiptFile(positionals[0] as string)
    let outcome
    try {
      outcome = await verifyReceipt(receipt, values.rpc)
    } catch (error) {
      if (error instanceof McpError) throw new CommandError(`${error.code}: ${error.message}`, { cause: error })
      throw error
    }
    if (values.json) io.out(JSON.stringify(outcome, null, 2))
    else {
      io.out(`lien ${receipt.decoded.lienId}: encumbered ${receipt.decoded.encumbered} at block ${receipt.blockNumber} on chain ${receipt.chainId} (registry ${receipt.registry})`)
      io.out(line('chain id', outcome.checks.chainId))
      io.out(line('block hash', outcome.checks.blockHash))
      io.out(line('result', outcome.checks.result))
      io.out(line('answer', outcome.checks.answer))
      io.out(outcome.message)
    }
    return outcome.match ? 0 : 1
  },
}
