// One error base: every error class of src/ extends OrderRelayError with a stable code,
// keeps its name and its message, and the CLI's exit code and the wire body are asked
// of it (exit 2 for usage and configuration errors, 1 for reported failures, any other
// error 1 with its URLs redacted and no stack trace).
import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HttpRequestError } from 'viem'
import { ManifestError, readManifest } from '../../src/chain/index.ts'
import { main } from '../../src/cli/index.ts'
import { CommandError, type Command, parseFlags, UsageError } from '../../src/cli/command.ts'
import { failureReport } from '../../src/cli/lib/failureReport.ts'
import { SubmitError, WatchError } from '../../src/client/index.ts'
import { AdapterArtifactError, AnvilNotFoundError, toAdapterArtifact } from '../../src/devnet/index.ts'
import { OrderRelayError } from '../../src/errors/index.ts'
import { StoreMismatchError, WriterLockLostError } from '../../src/indexer/store/index.ts'
import { ChainMovedError } from '../../src/indexer/sync/chainMoved.ts'
import { LogsRefusedError } from '../../src/indexer/sync/fetchLogs.ts'
import { BunNotFoundError } from '../../src/launcher/index.ts'
import { McpError } from '../../src/mcp/index.ts'
import { RelayError } from '../../src/relayer/errors.ts'
import { JournalLockedError, journalVersion, openJournal } from '../../src/relayer/journal/index.ts'
import { takeLock } from '../../src/relayer/journal/lock.ts'
import { BatchedRevertError } from '../../src/relayer/simulation/index.ts'
import { ConfigError, createEnvReader, errorLine } from '../../src/shared/index.ts'
import { fixFor, relayErrorCodes } from '../../src/wire/index.ts'
import { SignerError } from '../../src/signers/index.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-errors-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** What `run` threw. */
function thrown(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

const owner = { chainId: 31337, address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' } as const

/** One of each error class of src/, made the way the code makes it where that is cheap. */
const lockPath = join(dir, 'locked.sqlite')
const unlock = takeLock(lockPath)
const journalLocked = thrown(() => takeLock(lockPath))
unlock()
const laterPath = join(dir, 'later.sqlite')
const later = new Database(laterPath, { create: true })
later.exec(`PRAGMA user_version = ${journalVersion + 1}`)
later.close()
const mismatchPath = join(dir, 'mismatch.sqlite')
openJournal(mismatchPath, owner).close()

const reader = createEnvReader({})
reader.problem('RELAYER_PK is required')
reader.problem('RELAYER_PORT must be an integer from 1 to 65535')

const cases: { error: unknown; name: string; code: string; exitCode: 1 | 2 }[] = [
  { error: new RelayError('FEE_BELOW_FLOOR', 'feeBps 5 is below this relayer\'s floor of 10'), name: 'RelayError', code: 'FEE_BELOW_FLOOR', exitCode: 1 },
  { error: new SubmitError('NETWORK', 'could not reach the relayer', { status: 0 }), name: 'SubmitError', code: 'NETWORK', exitCode: 1 },
  { error: new WatchError('REFUSED', 'answered 400: not retried', { status: 400, fatal: true }), name: 'WatchError', code: 'REFUSED', exitCode: 1 },
  { error: new McpError('WRONG_CHAIN', 'the RPC serves chain 1, not 31337'), name: 'McpError', code: 'WRONG_CHAIN', exitCode: 1 },
  { error: thrown(() => reader.done('relayer')), name: 'ConfigError', code: 'CONFIG', exitCode: 2 },
  { error: new StoreMismatchError('INDEXER_DB x holds another index'), name: 'StoreMismatchError', code: 'STORE_MISMATCH', exitCode: 2 },
  { error: thrown(() => parseFlags(['--bogus'], {})), name: 'UsageError', code: 'USAGE', exitCode: 2 },
  { error: new CommandError('the receipt does not verify'), name: 'CommandError', code: 'COMMAND_FAILED', exitCode: 1 },
  { error: thrown(() => readManifest(join(dir, 'none.json'))), name: 'ManifestError', code: 'BAD_MANIFEST', exitCode: 2 },
  { error: new ChainMovedError('block 9 changed while its logs were read'), name: 'ChainMovedError', code: 'CHAIN_MOVED', exitCode: 1 },
  { error: new LogsRefusedError(7n, new Error('query returned more than 10000 results')), name: 'LogsRefusedError', code: 'LOGS_REFUSED', exitCode: 1 },
  { error: new WriterLockLostError('not the writer of indexer_1_x'), name: 'WriterLockLostError', code: 'WRITER_LOCK_LOST', exitCode: 1 },
  { error: new BunNotFoundError(), name: 'BunNotFoundError', code: 'BUN_NOT_FOUND', exitCode: 1 },
  { error: new AnvilNotFoundError({ nodeModulesFrom: ['/work'], foundryBin: '/home/me/.foundry/bin' }), name: 'AnvilNotFoundError', code: 'ANVIL_NOT_FOUND', exitCode: 1 },
  { error: thrown(() => toAdapterArtifact(null, 'TicketAdapter', 'Ticket.json')), name: 'AdapterArtifactError', code: 'BAD_ADAPTER_ARTIFACT', exitCode: 2 },
  { error: new BatchedRevertError('0x12345678'), name: 'BatchedRevertError', code: 'BATCHED_REVERT', exitCode: 1 },
  { error: thrown(() => openJournal(mismatchPath, { ...owner, chainId: 1 })), name: 'JournalMismatchError', code: 'JOURNAL_MISMATCH', exitCode: 1 },
  { error: journalLocked, name: 'JournalLockedError', code: 'JOURNAL_LOCKED', exitCode: 1 },
  { error: thrown(() => openJournal(laterPath, owner)), name: 'JournalVersionError', code: 'JOURNAL_VERSION', exitCode: 1 },
  { error: new SignerError('SIGNER_CONFIG', 'RELAYER_KEYSTORE k.json: the password does not open it'), name: 'SignerError', code: 'SIGNER_CONFIG', exitCode: 2 },
]

describe('every error class extends OrderRelayError', () => {
  test('each with its name, its code and its exit code', () => {
    for (const { error, name, code, exitCode } of cases) {
      expect({ name, base: error instanceof OrderRelayError, error: error instanceof Error }).toEqual({ name, base: true, error: true })
      const known = error as OrderRelayError
      expect({ name: known.name, code: known.code, exitCode: known.exitCode }).toEqual({ name, code, exitCode })
      // Without details, the short message is the message (errorLine reads it).
      if (known.details === undefined) expect(known.shortMessage).toBe(known.message)
    }
  })

  test('no error class of src/ is left out, and none extends Error directly', () => {
    const src = join(import.meta.dir, '../../src')
    const declared: string[] = []
    const direct: string[] = []
    for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'))) {
      const text = readFileSync(join(src, file), 'utf8')
      for (const [, name, base] of text.matchAll(/^(?:export )?class (\w+)(?:<[^>]*>)? extends (\w+)/gm)) {
        if (base === 'Error' && name !== 'OrderRelayError') direct.push(`${file}: ${name}`)
        if (name!.endsWith('Error') && name !== 'OrderRelayError') declared.push(name!)
      }
    }
    expect(direct).toEqual([])
    expect(declared.sort()).toEqual(cases.map((each) => each.name).sort())
  })

  test('the public properties each class had stay', () => {
    const relay = new RelayError('UPSTREAM_RPC', 'no receipt within 30 s for tx 0xab', { txHash: '0xab' })
    expect({ status: relay.status, txHash: relay.txHash }).toEqual({ status: 502, txHash: '0xab' })
    const submit = new SubmitError('RATE_LIMITED', 'rate limited', { status: 429, retryAfter: 3 })
    expect({ status: submit.status, retryAfter: submit.retryAfter }).toEqual({ status: 429, retryAfter: 3 })
    const watch = new WatchError('UNAVAILABLE', 'answered 503; retrying', { status: 503 })
    expect({ status: watch.status, fatal: watch.fatal }).toEqual({ status: 503, fatal: false })
    expect(new BatchedRevertError('0x12345678').data).toBe('0x12345678')
    expect(new LogsRefusedError(7n, new Error('x')).block).toBe(7n)
    expect(new StoreMismatchError('x')).toBeInstanceOf(ConfigError)
  })
})

describe('messages are what they were', () => {
  const message = (name: string) => (cases.find((each) => each.name === name)!.error as Error).message

  test('each as its class has always worded it', () => {
    expect(message('ConfigError')).toBe('invalid relayer configuration:\n  - RELAYER_PK is required\n  - RELAYER_PORT must be an integer from 1 to 65535')
    expect(message('ManifestError')).toBe(`cannot read manifest ${join(dir, 'none.json')}: ENOENT`)
    expect(message('AdapterArtifactError')).toBe('Ticket.json: not an artifact (expected a JSON object with abi and bytecode)')
    expect(message('LogsRefusedError')).toBe('eth_getLogs refused block 7: query returned more than 10000 results')
    expect(message('BatchedRevertError')).toBe('execution reverted')
    expect(message('JournalMismatchError')).toBe(`RELAYER_DB ${mismatchPath} belongs to chain:key 31337:${owner.address.toLowerCase()}, not 1:${owner.address.toLowerCase()}; give each chain and gas key its own journal`)
    expect(message('JournalVersionError')).toBe(
      `RELAYER_DB ${laterPath} was written by a later order-relay (journal version ${journalVersion + 1}; this one reads up to ${journalVersion}); run that later version on it, or give this one a journal of its own after checking the gas key's pending txs on chain`,
    )
    expect(message('JournalLockedError')).toStartWith(`RELAYER_DB ${lockPath} is in use by relayer process ${process.pid} on `)
    expect(message('BunNotFoundError').split('\n')[0]).toBe("bun not found: order-relay's servers run on Bun (bun:sqlite, Bun.serve), from the npm package `bun`.")
  })

  test('a configuration error: the problems are its details, under the short message', () => {
    const config = cases.find((each) => each.name === 'ConfigError')!.error as ConfigError
    expect({ shortMessage: config.shortMessage, details: config.details }).toEqual({
      shortMessage: 'invalid relayer configuration:',
      details: '  - RELAYER_PK is required\n  - RELAYER_PORT must be an integer from 1 to 65535',
    })
    // One line for a log: the headline and the first problem.
    expect(errorLine(config)).toBe('invalid relayer configuration: (- RELAYER_PK is required)')
    expect(errorLine(new JournalLockedError('held\nby another'))).toBe('held')
  })
})

describe('the wire body, the fix and the cause chain', () => {
  test("RelayError's body is the RelayFailure, and its fix the code's", () => {
    const refusal = new RelayError('FEE_BELOW_FLOOR', "feeBps 5 is below this relayer's floor of 10")
    expect(refusal.toBody()).toEqual({ ok: false, code: 'FEE_BELOW_FLOOR', message: "feeBps 5 is below this relayer's floor of 10" })
    expect(refusal.fix).toBe(relayErrorCodes.FEE_BELOW_FLOOR.fix)
    const revert = new RelayError('WOULD_REVERT', 'would revert: FeeTooHigh()')
    expect(revert.fix).toBe(fixFor('WOULD_REVERT', 'would revert: FeeTooHigh()')!)
    expect(new SubmitError('NETWORK', 'could not reach http://127.0.0.1:1', { status: 0 }).fix).toBe(fixFor('NETWORK', '')!)
    expect(new McpError('RPC_ERROR', 'x').toBody()).toEqual({ ok: false, code: 'RPC_ERROR', message: 'x' })
  })

  test('a filled order that can still settle: its fix says to send it again, never to sign a new one beside it', () => {
    const unspent = 'not settled: the node refuses its transaction (transaction type not supported); its tx 0x' + 'ab'.repeat(32) + ' was no longer known to the node before it was mined and its nonce was filled; nothing was spent on this order and it can still settle: send the same request again (it is signed anew) or to another relayer'
    expect(fixFor('UPSTREAM_RPC', unspent)).toContain('Do not sign a new order for it')
    expect(fixFor('FEE_BELOW_FLOOR', unspent)).toContain('only once this one can no longer settle')
    expect(fixFor('FEE_BELOW_FLOOR', 'the fee does not pay for the gas')).toBe(relayErrorCodes.FEE_BELOW_FLOOR.fix)
  })

  test('a RelayError is built without a stack trace; other errors keep theirs', () => {
    const limit = Error.stackTraceLimit
    expect(new RelayError('UPSTREAM_RPC', 'x').stack ?? '').not.toContain('\n    at ')
    expect(new BatchedRevertError('0x').stack ?? '').not.toContain('\n    at ')
    expect(Error.stackTraceLimit).toBe(limit)
    expect(new CommandError('x').stack).toContain('\n    at ')
  })

  test('walk follows the cause chain', () => {
    const node = new HttpRequestError({ url: 'http://127.0.0.1:1', details: 'fetch failed' })
    const mcp = new McpError('RPC_UNREACHABLE', 'cannot reach the RPC at http://127.0.0.1:1', { cause: node })
    const command = new CommandError(`RPC_UNREACHABLE: ${mcp.message}`, { cause: mcp })
    expect(command.cause).toBe(mcp)
    expect(command.walk()).toBe(node)
    expect(command.walk((cause) => cause instanceof McpError)).toBe(mcp)
    expect(command.walk((cause) => cause instanceof HttpRequestError)).toBe(node)
    expect(command.walk((cause) => cause instanceof RelayError)).toBeNull()
    expect(new UsageError('x').walk()).toBeInstanceOf(UsageError)
    // A chain that loops ends.
    const a = new CommandError('a')
    const b = new CommandError('b', { cause: a })
    Object.defineProperty(a, 'cause', { value: b })
    expect(a.walk((cause) => cause === 'never')).toBeNull()
    // The base without a subclass: its details follow the short message in `message`.
    const base = new OrderRelayError('SOME_CODE', 'what went wrong', { details: 'one\ntwo', fix: 'do this' })
    expect({ name: base.name, message: base.message, fix: base.fix, exitCode: base.exitCode }).toEqual({ name: 'OrderRelayError', message: 'what went wrong\none\ntwo', fix: 'do this', exitCode: 1 })
  })
})

describe('the CLI asks the error how to end', () => {
  /** Runs the CLI in this process with `env` only; resolves with its exit code and output. */
  async function cli(args: string[], env: Record<string, string> = {}) {
    const out: string[] = []
    const err: string[] = []
    const code = await main(args, { env, out: (line) => out.push(line), err: (line) => err.push(line), signal: new AbortController().signal })
    return { code, out: out.join('\n'), err }
  }

  const receipt = {
    chainId: 31337,
    registry: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    blockNumber: '5',
    blockHash: `0x${'ab'.repeat(32)}`,
    request: { to: '0x5FbDB2315678afecb367f032d93F642f64180aa3', data: `0x12345678${'00'.repeat(32)}` },
    result: `0x${'00'.repeat(32)}`,
    decoded: { function: 'isEncumbered(bytes32)', lienId: `0x${'00'.repeat(32)}`, encumbered: false },
  }

  test('usage and configuration errors exit 2 with the usage line', async () => {
    const usage = await cli(['order', '--bogus'])
    expect(usage.code).toBe(2)
    expect(usage.err[0]).toStartWith("order-relay order: Unknown option '--bogus'")
    expect(usage.err[1]).toStartWith('Usage: order-relay order [options]')
    const config = await cli(['relayer', '--manifest', join(dir, 'none.json')])
    expect(config.code).toBe(2)
    expect(config.err[0]).toStartWith('order-relay relayer: invalid relayer configuration:\n  - RELAYER_PK is required')
    expect(config.err.at(-1)).toStartWith('Usage: order-relay relayer [options]')
  })

  test('a failure the command reports exits 1, without the usage line', async () => {
    const path = join(dir, 'disagreeing.json')
    writeFileSync(path, JSON.stringify({ encumbered: true, receipt }))
    const disagreeing = await cli(['verify-receipt', path, '--rpc', 'http://127.0.0.1:1'])
    expect(disagreeing).toEqual({ code: 1, out: '', err: [`order-relay verify-receipt: ${path} says encumbered true but its receipt says false`] })
    // An McpError reported by the command: its code leads the line; the URL's credentials never show.
    const agreeing = join(dir, 'receipt.json')
    writeFileSync(agreeing, JSON.stringify(receipt))
    const unreachable = await cli(['verify-receipt', agreeing, '--rpc', 'http://user:hunter2@127.0.0.1:1/v2/AbCdEfGhIjKlMnOpQrStUv123?apikey=sekrit'])
    expect(unreachable.code).toBe(1)
    expect(unreachable.err).toHaveLength(1)
    expect(unreachable.err[0]).toStartWith('order-relay verify-receipt: RPC_UNREACHABLE: cannot reach the RPC at http://127.0.0.1:1 ')
    for (const secret of ['hunter2', 'sekrit', 'AbCdEfGhIjKlMnOpQrStUv123']) expect(unreachable.err[0]).not.toContain(secret)
  }, 30_000)

  test('any other error exits 1 with its message, URLs redacted, never a stack trace; a fix gets its own line', () => {
    const command = { name: 'deploy', usage: '[options]' } as Command
    const library = new Error('HTTP request failed.\nURL: https://u:p@rpc.example/v2/AbCdEfGhIjKlMnOpQrStUv123?key=zzz')
    const report = failureReport(library, command)
    expect(report).toEqual({ exitCode: 1, lines: ['order-relay deploy: HTTP request failed.\nURL: https://rpc.example/v2/***'] })
    expect(failureReport('a thrown string', command)).toEqual({ exitCode: 1, lines: ['order-relay deploy: a thrown string'] })
    expect(failureReport(new CommandError('the node is behind', { fix: 'wait for it to sync' }), command)).toEqual({
      exitCode: 1,
      lines: ['order-relay deploy: the node is behind', 'fix: wait for it to sync'],
    })
    const usage = failureReport(new UsageError('--rpc must be an http(s) URL'), command)
    expect(usage.exitCode).toBe(2)
    expect(usage.lines[0]).toBe('order-relay deploy: --rpc must be an http(s) URL')
    expect(usage.lines[1]).toStartWith('Usage: order-relay deploy [options]   (`')
    // A file the command was pointed at that it cannot use is a usage error, wherever it is read.
    for (const unusable of [new ManifestError('manifest m.json is not valid JSON'), new AdapterArtifactError('the artifact a.json is not valid JSON')]) {
      expect(failureReport(unusable, command).exitCode).toBe(2)
    }
  })
})
