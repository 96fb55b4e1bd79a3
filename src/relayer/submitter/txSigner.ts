import type { Hex, LocalAccount, TransactionSerializableEIP1559 } from 'viem'
import { errorLine, type Logger } from '../../shared/index.ts'
import type { SignerAnswer, SignerRequest } from './signerThread.ts'

export type TxSigner = {
  /** Signs the txs in order with viem's `account.signTransaction`: their raw bytes. */
  signAll(txs: TransactionSerializableEIP1559[]): Promise<Hex[]>
  /** Starts the signer thread now rather than at the first batch. */
  start(): void
  /** Where batches are signed now: in the signer thread, or in this one. */
  readonly where: 'thread' | 'main'
  /** Ends the signer thread (signing then goes on in this thread). */
  stop(): void
}

/**
 * The gas key's signer. A batch of txs is signed in a thread of its own (signerThread.ts,
 * a Bun Worker), so the relayer's event loop goes on answering, simulating and reading
 * receipts meanwhile: viem's `signTransaction` (JavaScript secp256k1 and Keccak) takes
 * a few hundred µs a tx, a large share of the event loop under load. Without `privateKey`, or once the thread fails
 * (it could not start, or died), txs are signed in this thread, with the same bytes.
 *
 * @example
 * const signer = createTxSigner({ account, privateKey, logger })
 * const [raw] = await signer.signAll([{ type: 'eip1559', chainId, nonce, to, data, gas, maxFeePerGas, maxPriorityFeePerGas }])
 */
export function createTxSigner(options: { account: LocalAccount; privateKey?: Hex; logger: Logger; /** The thread's module (tests); default signerThread.ts. */ threadUrl?: string }): TxSigner {
  const { account, logger } = options
  let key = options.privateKey
  let thread: Worker | undefined
  let failed = key === undefined
  let nextId = 0
  const waiting = new Map<number, { resolve: (raws: Hex[]) => void; reject: (error: Error) => void }>()

  const inThisThread = async (txs: TransactionSerializableEIP1559[]) => {
    const raws: Hex[] = []
    for (const tx of txs) raws.push(await account.signTransaction(tx))
    return raws
  }

  /** The thread gave up: every batch it held is signed here instead, and so is every later one. */
  function fail(why: string) {
    if (failed) return
    logger.warn(`the signer thread stopped (${why}); signing in the main thread from now on`)
    end()
  }

  /** Ends the thread; the batches it held are handed back (signAll signs them here). */
  function end() {
    failed = true
    thread?.terminate()
    thread = undefined
    key = undefined
    const held = [...waiting.values()]
    waiting.clear()
    for (const each of held) each.reject(new Error('signer thread stopped'))
  }

  function started(): Worker | undefined {
    if (failed) return undefined
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
      if (!each) return
      if ('raws' in data) each.resolve(data.raws)
      else each.reject(new Error(`signing failed in the signer thread (${data.error})`))
    }
    thread.onerror = (event) => fail(errorLine(event))
    thread.postMessage({ kind: 'key', key: key! } satisfies SignerRequest)
    // The thread holds the key from here on.
    key = undefined
    return thread
  }

  return {
    async signAll(txs) {
      const worker = started()
      if (!worker || txs.length === 0) return inThisThread(txs)
      const id = nextId++
      try {
        return await new Promise<Hex[]>((resolve, reject) => {
          waiting.set(id, { resolve, reject })
          worker.postMessage({ kind: 'sign', id, txs } satisfies SignerRequest)
        })
      } catch (error) {
        if (!failed) throw error
        return inThisThread(txs)
      }
    },
    start() {
      started()
    },
    get where() {
      return failed ? 'main' : 'thread'
    },
    stop() {
      // A batch still at the thread is signed here: its caller never waits for a thread that is gone.
      end()
    },
  }
}

/**
 * The signer thread's module. From source, the file beside this one; inside the
 * executable (`bun build --compile`, scripts/build.ts) it is the build's second entry
 * point, embedded under the bundle's root, the folder the two entry points share
 * (src/), where a path relative to this module would not find it; in the npm
 * package's bundle (dist/cli/main.js, scripts/build-cli.ts), signerThread.js beside it.
 */
function signerThreadModule(): string {
  const url = import.meta.url
  const compiled = url.includes('/$bunfs/') || url.includes('~BUN')
  if (compiled) return './relayer/submitter/signerThread.ts'
  return new URL(url.endsWith('.js') ? './signerThread.js' : './signerThread.ts', url).href
}
