import { type Hex, type LocalAccount, parseTransaction, type TransactionSerializableEIP1559 } from 'viem'
import { errorLine, type Logger } from '../../shared/index.ts'
import { type GasSigner, SignerError } from '../../signers/index.ts'
import { RelayError } from '../errors.ts'
import type { SignerAnswer, SignerRequest } from './signerThread.ts'
import { createSignerHealth, defaultProbeSchedule, type ProbeSchedule, type SignerHealth, signerKindName } from './signerHealth.ts'

export type TxSigner = {
  /** Signs the txs: their raw bytes, in the order given. Rejects (nothing of the batch signed) when any one fails. */
  signAll(txs: TransactionSerializableEIP1559[]): Promise<Hex[]>
  /** Starts the signer thread now rather than at the first batch. */
  start(): void
  /** Where batches are signed now: in the signer thread, in this one, or at the signer's service (remote, KMS). */
  readonly where: 'thread' | 'main' | 'service'
  /** Whether the signer answers (a service can fail or time out; a local key always answers). */
  readonly health?: SignerHealth
  /** Ends the signer thread (signing then goes on in this thread) and the health probes. */
  stop(): void
}

/** Documented defaults of RELAYER_SIGNER_CONCURRENCY and RELAYER_SIGNER_TIMEOUT_MS. */
export const signerDefaults = { concurrency: 64, timeoutMs: 10_000 } as const

export type TxSignerOptions = {
  logger: Logger
  /** The thread's module (tests); default signerThread.ts. */
  threadUrl?: string
} & (
  | {
      /**
       * The gas key. One that hands its key over (`takePrivateKey`: RELAYER_PK, a keystore)
       * signs in the signer thread; one that keeps it (a remote signer, KMS) signs each tx
       * at its service, `concurrency` at once, each within `timeoutMs`.
       */
      gasSigner: GasSigner
      /** false: a local key signs in this thread (tests of that path). */
      signerThread?: boolean
      /** Most signatures asked of a service at once (RELAYER_SIGNER_CONCURRENCY). */
      concurrency?: number
      /** How long one signature may take at a service before it counts as failed (RELAYER_SIGNER_TIMEOUT_MS). */
      timeoutMs?: number
      /** A throw-away tx's chain id for the probe signatures while a service is down. */
      chainId?: number
      /** How often a service that is down is probed. */
      probe?: ProbeSchedule
    }
  | {
      /** A local account: signs in this thread, or with `privateKey` in the signer thread. */
      account: LocalAccount
      privateKey?: Hex
    }
)

/**
 * The gas key's signer. With a local key (RELAYER_PK, a decrypted keystore) a batch of
 * txs is signed in a thread of its own (signerThread.ts, a Bun Worker), so the relayer's
 * event loop goes on answering, simulating and reading receipts meanwhile: viem's
 * `signTransaction` (JavaScript secp256k1 and Keccak) takes a few hundred µs a tx, a
 * large share of the event loop under load. Without the raw key, or once the thread fails
 * (it could not start, or died), txs are signed in this thread, with the same bytes.
 *
 * A key that never leaves its service (a remote signer, KMS) costs 10–100 ms of waiting per
 * signature, not CPU: a batch's txs are asked for together, at most `concurrency` at once
 * across every batch, each bounded by `timeoutMs`. Each signed tx is parsed and its fields
 * compared with those asked for (the signer's own checks recover the sender); any failure
 * fails the whole batch before anything of it is journaled, and marks the signer down
 * (signerHealth.ts) until a signature succeeds again.
 *
 * @example
 * const signer = createTxSigner({ gasSigner, logger, concurrency: 64, timeoutMs: 10_000, chainId })
 * const [raw] = await signer.signAll([{ type: 'eip1559', chainId, nonce, to, data, gas, maxFeePerGas, maxPriorityFeePerGas }])
 */
export function createTxSigner(options: TxSignerOptions): TxSigner {
  if ('gasSigner' in options && options.gasSigner.takePrivateKey === undefined) return serviceSigner({ ...options, gasSigner: options.gasSigner })
  const { logger } = options
  let signOne: (tx: TransactionSerializableEIP1559) => Promise<Hex>
  let key: Hex | undefined
  if ('gasSigner' in options) {
    const { gasSigner } = options
    signOne = (tx) => gasSigner.signTransaction(tx)
    // The thread takes the key; the signer keeps signing in this thread should the thread fail.
    key = options.signerThread === false ? undefined : gasSigner.takePrivateKey?.()
  } else {
    const { account } = options
    signOne = (tx) => account.signTransaction(tx)
    key = options.privateKey
  }
  let thread: Worker | undefined
  let failed = key === undefined
  let nextId = 0
  const waiting = new Map<number, { resolve: (raws: Hex[]) => void; reject: (error: Error) => void }>()

  const inThisThread = async (txs: TransactionSerializableEIP1559[]) => {
    const raws: Hex[] = []
    for (const tx of txs) raws.push(await signOne(tx))
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
 * A signer whose key stays at its service (a remote signer, KMS): every batch's txs asked
 * for together through one limit of `concurrency` signatures in flight, each within
 * `timeoutMs`. A signature that fails or times out fails its whole batch (the rest of
 * it is still waited for, so the limit holds at the service) and marks the signer down.
 */
function serviceSigner(options: { gasSigner: GasSigner; logger: Logger; concurrency?: number; timeoutMs?: number; chainId?: number; probe?: ProbeSchedule }): TxSigner {
  const { gasSigner, logger } = options
  const concurrency = options.concurrency ?? signerDefaults.concurrency
  const timeoutMs = options.timeoutMs ?? signerDefaults.timeoutMs
  const name = `${signerKindName(gasSigner.kind)} ${gasSigner.description}`
  const limit = createLimit(concurrency)

  /** One signature within `timeoutMs`, checked against what was asked. A late answer is dropped. */
  async function signChecked(tx: TransactionSerializableEIP1559): Promise<Hex> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new SignerError('SIGNER_UNAVAILABLE', `the ${name} did not sign within ${timeoutMs} ms (RELAYER_SIGNER_TIMEOUT_MS)`, { fix: 'check the signer service, or raise RELAYER_SIGNER_TIMEOUT_MS' })),
        timeoutMs,
      )
    })
    try {
      const raw = await Promise.race([gasSigner.signTransaction(tx), late])
      const wrong = differentField(tx, raw)
      if (wrong) throw new SignerError('SIGNER_FAULT', `the ${name} returned a transaction whose ${wrong} differs from the one asked for; it was not journaled or broadcast`)
      return raw
    } finally {
      clearTimeout(timer)
    }
  }

  const health: SignerHealth = createSignerHealth({
    logger,
    signer: gasSigner,
    schedule: options.probe ?? defaultProbeSchedule,
    probe: () => limit(() => signChecked(probeTx(gasSigner, options.chainId ?? 1))),
  })

  return {
    async signAll(txs) {
      const settled = await Promise.allSettled(txs.map((tx) => limit(() => signChecked(tx))))
      const failure = settled.find((result) => result.status === 'rejected')
      if (failure) {
        health.failed(failure.reason)
        throw asSignerRefusal(failure.reason, name)
      }
      if (txs.length > 0) health.succeeded()
      return settled.map((result) => (result as PromiseFulfilledResult<Hex>).value)
    },
    start() {},
    where: 'service',
    health,
    stop() {
      health.stop()
    },
  }
}

/**
 * A tx that can never be mined, signed only to see whether the signer answers: to the key
 * itself, nonce 2^53 - 1 (a nonce the key will not reach), no fee. Never journaled or broadcast.
 */
function probeTx(signer: GasSigner, chainId: number): TransactionSerializableEIP1559 {
  return { type: 'eip1559', chainId, nonce: Number.MAX_SAFE_INTEGER, to: signer.address, value: 0n, data: '0x', gas: 21_000n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }
}

/** The first field of the signed `raw` that is not the one asked for in `tx`, or undefined. */
function differentField(tx: TransactionSerializableEIP1559, raw: Hex): string | undefined {
  let parsed: ReturnType<typeof parseTransaction>
  try {
    parsed = parseTransaction(raw)
  } catch {
    return 'encoding'
  }
  if (parsed.type !== 'eip1559') return 'type'
  const same = {
    'chain id': parsed.chainId === tx.chainId,
    nonce: (parsed.nonce ?? 0) === (tx.nonce ?? 0),
    to: parsed.to?.toLowerCase() === tx.to?.toLowerCase(),
    data: (parsed.data ?? '0x').toLowerCase() === (tx.data ?? '0x').toLowerCase(),
    // A zero is encoded empty, and parsed back as absent.
    gas: (parsed.gas ?? 0n) === (tx.gas ?? 0n),
    value: (parsed.value ?? 0n) === (tx.value ?? 0n),
    maxFeePerGas: (parsed.maxFeePerGas ?? 0n) === (tx.maxFeePerGas ?? 0n),
    maxPriorityFeePerGas: (parsed.maxPriorityFeePerGas ?? 0n) === (tx.maxPriorityFeePerGas ?? 0n),
    'access list': (parsed.accessList ?? []).length === (tx.accessList ?? []).length,
    signature: parsed.r !== undefined && parsed.s !== undefined && parsed.yParity !== undefined,
  }
  return Object.entries(same).find(([, ok]) => !ok)?.[0]
}

/**
 * A failed signature as the orders of its batch are answered: 503 INSUFFICIENT_RELAYER_GAS
 * naming the signer (never a secret), the signer's own error as the cause.
 */
function asSignerRefusal(error: unknown, name: string): SignerRefusal {
  return new SignerRefusal(`not broadcast: the gas key's signer (${name}) failed (${errorLine(error)}); nothing was signed or spent; try another relayer`, error)
}

/** A batch its signer did not sign (see signerHealth.ts): the signer's failure is its cause, already logged there. */
export class SignerRefusal extends RelayError {
  constructor(message: string, cause: unknown) {
    super('INSUFFICIENT_RELAYER_GAS', message, { cause })
    this.name = 'SignerRefusal'
  }
}

/** Runs at most `most` of the functions given at once, the others queued in order. */
function createLimit(most: number) {
  let running = 0
  const queued: Array<() => void> = []
  return async function limit<T>(run: () => Promise<T>): Promise<T> {
    // A finished run hands its place straight to the next queued one: no newcomer slips in between.
    if (running >= most) await new Promise<void>((resolve) => queued.push(resolve))
    else running++
    try {
      return await run()
    } finally {
      const next = queued.shift()
      if (next) next()
      else running--
    }
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
