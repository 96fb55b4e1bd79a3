import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Address, PublicClient } from 'viem'
import { OrderRelayError } from '../errors/index.ts'
import { checkJournalMatchesChain } from '../relayer/index.ts'
import { openJournal } from '../relayer/journal/index.ts'
import { type CheckResult, failFromMessage, pass } from './checkResult.ts'

/**
 * An existing journal is one this relayer would open: written by a build it reads, for
 * this chain and gas key, and not from a chain that was reset since (the relayer's own
 * start checks: openJournal, checkJournalMatchesChain). They run on a copy in a temporary
 * folder (the file and its WAL), so the journal itself is neither locked, upgraded nor
 * changed; the copy is removed after.
 */
export async function checkJournalHistory(client: PublicClient, options: { path: string; chainId: number; address: Address }): Promise<CheckResult> {
  const path = resolve(options.path)
  const folder = mkdtempSync(join(tmpdir(), 'order-relay-check-'))
  const copy = join(folder, 'journal.sqlite')
  // Messages name the journal, not its copy.
  const named = (message: string) => message.replaceAll(copy, path)
  try {
    copyFileSync(path, copy)
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`)
    const journal = openJournal(copy, { chainId: options.chainId, address: options.address })
    try {
      await checkJournalMatchesChain(client, journal, options.address)
      const last = journal.lastMinedNonce()
      return pass('journal history', `for chain ${options.chainId} and ${options.address}${last === undefined ? ', no tx mined yet' : `, nonces mined up to ${last}`}`)
    } finally {
      journal.close()
    }
  } catch (error) {
    if (!(error instanceof OrderRelayError)) throw error
    return failFromMessage('journal history', named(error.message), `move ${path} away or set RELAYER_DB to a journal of this chain and key, after checking the key's pending txs on chain`)
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}
