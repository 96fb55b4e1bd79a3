import type { Address, Hex, TransactionSerializableEIP1559 } from 'viem'
import { errorLine, type Logger } from '../../shared/index.ts'
import type { CheckFault, SignedByService, SignerAnswer, SignerRequest } from './signerThread.ts'

export type SignerThreadClient = {
  /**
   * Starts the thread now (it is started by the first request otherwise). False when it
   * cannot run (it failed to start or died): the caller does the work in this thread.
   */
  start(): boolean
  /** Signs the txs with the key handed over at creation; rejects once the thread stopped (`gone` then says so). */
  sign(txs: TransactionSerializableEIP1559[]): Promise<Hex[]>
  /** Each service-signed tx's fault (checkSignedTx), null where it passed; rejects once the thread stopped (`gone` then says so). */
  check(address: Address, signed: SignedByService[]): Promise<Array<CheckFault | null>>
  /** Whether the thread failed or was stopped: every later request is the caller's to do. */
  readonly gone: boolean
  /** Ends the thread; what it held rejects. */
  stop(): void
}

/**
 * The relayer's side of the signer thread (signerThread.ts, a Bun Worker): started on
 * first use, handed `key` once (a local key; the thread keeps it, this side forgets it),
 * then sent batches to sign or to check, each answered by id. A thread that cannot start
 * or dies is given up for good with one warning; every request it held, and every later
 * one, rejects (`gone` is then true), and the caller signs or checks in its own thread instead.
 */
export function createSignerThreadClient(options: {
  logger: Logger
  /** What the thread does, for its warning: 'signing' (a local key) or 'checking signed txs' (a service's). */
  work: 'signing' | 'checking signed txs'
  key?: Hex | undefined
  threadUrl?: string | undefined
}): SignerThreadClient {
  const { logger } = options
  let key = options.key
  let thread: Worker | undefined
  let gone = false
  let nextId = 0
  const waiting = new Map<number, { resolve: (answer: SignerAnswer) => void; reject: (error: Error) => void }>()

  /** The thread gave up: every request it held is the caller's to do, and so is every later one. */
  function fail(why: string) {
    if (gone) return
    logger.warn(`the signer thread stopped (${why}); ${options.work} in the main thread from now on`)
    end()
  }

  function end() {
    gone = true
    thread?.terminate()
    thread = undefined
    key = undefined
    const held = [...waiting.values()]
    waiting.clear()
    for (const each of held) each.reject(new Error('signer thread stopped'))
  }

  function started(): Worker | undefined {
    if (gone) return undefined
    if (thread) return thread
    try {
      thread = new Worker(options.threadUrl ?? signerThreadModule())
    } catch (error) {
      fail(`it could not start: ${errorLine(error)}`)
      return undefined
    }
    thread.onmessage = ({ data }: MessageEvent<SignerAnswer>) => {
      const each = waiting.get(data.id)
      waiting.delete(data.id)
      each?.resolve(data)
    }
    thread.onerror = (event) => fail(errorLine(event))
    if (key !== undefined) thread.postMessage({ kind: 'key', key } satisfies SignerRequest)
    // The thread holds the key from here on.
    key = undefined
    return thread
  }

  function ask(request: SignerRequest & { id: number }): Promise<SignerAnswer> {
    const worker = started()
    if (!worker) return Promise.reject(new Error('signer thread stopped'))
    return new Promise<SignerAnswer>((resolve, reject) => {
      waiting.set(request.id, { resolve, reject })
      worker.postMessage(request)
    })
  }

  return {
    start: () => started() !== undefined,
    async sign(txs) {
      const answer = await ask({ kind: 'sign', id: nextId++, txs })
      if ('raws' in answer) return answer.raws
      throw new Error(`signing failed in the signer thread (${'error' in answer ? answer.error : 'no signed txs'})`)
    },
    async check(address, signed) {
      const answer = await ask({ kind: 'check', id: nextId++, address, signed })
      if ('faults' in answer) return answer.faults
      throw new Error(`checking failed in the signer thread (${'error' in answer ? answer.error : 'no answer'})`)
    },
    get gone() {
      return gone
    },
    stop: end,
  }
}

/**
 * The signer thread's module. From source, the file beside this one; inside the
 * executable (`bun build --compile`, scripts/release/compile.ts) it is the build's second
 * entry point, embedded under the bundle's root, the folder the two entry points share
 * (src/), where a path relative to this module would not find it; in the npm package's
 * bundle (dist/cli/main.js, scripts/build-cli.ts), signerThread.js beside it.
 */
function signerThreadModule(): string {
  const url = import.meta.url
  const compiled = url.includes('/$bunfs/') || url.includes('~BUN')
  if (compiled) return './relayer/submitter/signerThread.ts'
  return new URL(url.endsWith('.js') ? './signerThread.js' : './signerThread.ts', url).href
}
