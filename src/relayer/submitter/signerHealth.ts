import { errorLine, type Logger } from '../../shared/index.ts'
import type { GasSigner } from '../../signers/index.ts'

/** How often a signer that is down is asked for a probe signature: from `firstMs`, doubling up to `maxMs`. */
export type ProbeSchedule = { firstMs: number; maxMs: number }

export const defaultProbeSchedule: ProbeSchedule = { firstMs: 1_000, maxMs: 15_000 }

/**
 * Whether the gas key's signer answers (a remote signer, KMS: a service that can fail or
 * time out). A signature that failed with SIGNER_UNAVAILABLE or SIGNER_FAULT, or timed
 * out, marks the signer down: while down, the relayer takes no new order (503
 * INSUFFICIENT_RELAYER_GAS, `/ready` fails with the reason), since each would wait
 * on a signer that does not answer. Txs already journaled are untouched: they were signed
 * before the fault and the nonce keeper sends them as signed. The signer is up again as
 * soon as a signature succeeds: a real one, or a probe (`probe`, a throw-away tx that is
 * never journaled or broadcast) asked every `firstMs`, backing off to `maxMs`, while
 * down. The fault is logged once per episode, and so is the recovery; lines name the
 * signer's kind and description, never a secret.
 *
 * @example
 * const health = createSignerHealth({ logger, signer: gasSigner, probe: () => signer.probe() })
 * health.failed(error) // a signature failed
 * health.down() // the reason new orders are refused, or undefined
 */
export function createSignerHealth(options: {
  logger: Logger
  signer: Pick<GasSigner, 'kind' | 'description'>
  /** Signs a throw-away tx; rejects while the signer does not answer. */
  probe: () => Promise<unknown>
  schedule?: ProbeSchedule
  now?: () => number
}) {
  const { logger, signer } = options
  const schedule = options.schedule ?? defaultProbeSchedule
  const now = options.now ?? Date.now
  const name = `${signerKindName(signer.kind)} ${signer.description}`
  let fault: { why: string; since: number } | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let delay = schedule.firstMs
  let stopped = false

  function probeLater() {
    clearTimeout(timer)
    if (stopped || !fault) return
    timer = setTimeout(async () => {
      timer = undefined
      try {
        await options.probe()
        up()
      } catch {
        // Still down: the episode's first failure was logged; wait longer before the next probe.
        delay = Math.min(delay * 2, schedule.maxMs)
        probeLater()
      }
    }, delay)
    timer.unref?.()
  }

  function up() {
    if (!fault) return
    const seconds = ((now() - fault.since) / 1000).toFixed(1)
    fault = undefined
    clearTimeout(timer)
    timer = undefined
    logger.info(`the gas key's signer (${name}) answers again after ${seconds} s; taking new orders`)
  }

  return {
    /** A signature failed (a SignerError, or no answer in time): down until one succeeds. */
    failed(error: unknown) {
      if (fault) return
      const why = errorLine(error)
      fault = { why, since: now() }
      delay = schedule.firstMs
      logger.error(`the gas key's signer (${name}) failed: ${why}; this relayer takes no new orders until it signs again (probed every few seconds); transactions already signed are sent as signed`)
      probeLater()
    },
    /** A signature succeeded. */
    succeeded: up,
    /** Why no new order is taken now (the signer is down), or undefined. */
    down(): string | undefined {
      if (!fault) return undefined
      return `the gas key's signer (${name}) does not sign (${fault.why}) since ${new Date(fault.since).toISOString()}; new orders wait until it answers again`
    },
    /** Ends the probes (the relayer stops). */
    stop() {
      stopped = true
      clearTimeout(timer)
      timer = undefined
    },
  }
}

export type SignerHealth = ReturnType<typeof createSignerHealth>

/** The signer's kind as the log lines and answers say it. */
export function signerKindName(kind: GasSigner['kind']): string {
  switch (kind) {
    case 'private-key':
      return 'local key'
    case 'keystore':
      return 'keystore'
    case 'remote':
      return 'remote signer'
    case 'aws-kms':
      return 'AWS KMS key'
  }
}
