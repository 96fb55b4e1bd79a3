import type { KMSClient } from '@aws-sdk/client-kms'
import type { SignerError } from '../gasSigner.ts'
import { describeSdkError, kmsDeadlineFailure, kmsFailure } from './kmsFailure.ts'
import { OrderRelayError } from '../../errors/index.ts'

/** One KMS call: which operation, at start or signing, with which key, client and time limit. */
export type KmsCall = {
  operation: 'GetPublicKey' | 'Sign'
  phase: 'start' | 'sign'
  keyId: string
  region: string
  timeoutMs: number
  client: KMSClient
}

/** A command whose middleware stack takes the attempt log: the part of the SDK's stack every command shares. */
export type AttemptWatchable = {
  middlewareStack: {
    add(middleware: (next: (args: never) => Promise<unknown>) => (args: never) => Promise<unknown>, options: { step: 'finalizeRequest'; priority: 'low'; name: string }): void
  }
}

/**
 * Sends one KMS command (`send` with the AbortSignal it is given) within `timeoutMs`, the
 * SDK's retries included, and turns any failure into a SignerError (kmsFailure.ts). Each
 * failed attempt's error name is noted by a middleware inside the SDK's retry loop, so a
 * deadline that ends a run of throttled attempts is reported as throttling.
 *
 * @example
 * const command = new SignCommand({ KeyId, Message, MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' })
 * const answer = await callKms({ ...site, operation: 'Sign', phase: 'sign' }, command, (abortSignal) => client.send(command, { abortSignal }))
 */
export async function callKms<output>(call: KmsCall, command: AttemptWatchable, send: (abortSignal: AbortSignal) => Promise<output>): Promise<output> {
  const attempts: string[] = []
  command.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args)
      } catch (error) {
        attempts.push(describeSdkError(error).name)
        throw error
      }
    },
    { step: 'finalizeRequest', priority: 'low', name: 'orderRelayAttemptLog' },
  )
  try {
    return await withDeadline(call.timeoutMs, send)
  } catch (error) {
    // The attempt the deadline itself aborted says nothing about KMS.
    const failedAttempts = attempts.filter((name) => name !== 'AbortError')
    const site = { ...call, redact: await credentialRedactor(call.client) }
    const failure: SignerError = error instanceof DeadlineReached ? kmsDeadlineFailure(site, failedAttempts, call.timeoutMs) : kmsFailure(error, site)
    throw failure
  }
}

/** The deadline of one KMS call passed (turned into SIGNER_UNAVAILABLE where it is caught). */
class DeadlineReached extends OrderRelayError<'KMS_DEADLINE'> {
  constructor() {
    super('KMS_DEADLINE', 'the KMS call did not finish in time', { stackTrace: false })
  }
}

/** Runs `send` with an AbortSignal that fires after `ms`; rejects with a DeadlineReached then, whether or not the SDK honours the signal. */
async function withDeadline<output>(ms: number, send: (abortSignal: AbortSignal) => Promise<output>): Promise<output> {
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new DeadlineReached())
      controller.abort()
    }, ms)
  })
  try {
    return await Promise.race([send(controller.signal), deadline])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * A redactor of the credentials the client signs with: every place the access key id,
 * secret key or session token appears in a text becomes `[redacted]`. The credentials are
 * read from the client when a failure is described (they may have rotated) and not kept.
 */
async function credentialRedactor(client: KMSClient): Promise<(text: string) => string> {
  let secrets: string[] = []
  try {
    const credentials = await client.config.credentials()
    secrets = [credentials.accessKeyId, credentials.secretAccessKey, credentials.sessionToken].filter((value): value is string => typeof value === 'string' && value.length >= 4)
  } catch {
    // No credentials could be read: there are none to leak.
  }
  return (text) => secrets.reduce((redacted, secret) => redacted.split(secret).join('[redacted]'), text)
}
