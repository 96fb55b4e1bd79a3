import type { Database } from 'bun:sqlite'
import type { JournalSlot } from './types.ts'

/**
 * The answer codes the journal writes behind (see openJournal): kept here until the next
 * commit the journal makes anyway carries them (`writeWaiting`, called last inside it),
 * or, when none comes within `delayMs`, a commit of their own. Reads overlay them, so the
 * process always reads its own answers.
 */
export function createAnswerCodes(db: Database, delayMs: number) {
  const waiting = new Map<number, string>()
  const writeAnswer = db.query('UPDATE slots SET answer = ? WHERE nonce = ?')
  let timer: ReturnType<typeof setTimeout> | undefined
  let closed = false

  /**
   * Inside a transaction, last: writes the codes waiting. One that cannot be written (a full
   * disk) stays waiting for the next commit, and the transaction's own writes go on: an
   * answer code never holds back a batch or an outcome.
   */
  function writeWaiting() {
    for (const [nonce, code] of waiting) {
      try {
        writeAnswer.run(code, nonce)
        waiting.delete(nonce)
      } catch {}
    }
  }
  const writeAlone = db.transaction(writeWaiting)
  /** The commit of their own; a failure there must not become an uncaught error. */
  const writeLater = () => {
    timer = undefined
    if (waiting.size === 0) return
    try {
      writeAlone()
    } catch {}
    if (waiting.size > 0) schedule()
  }
  const schedule = () => {
    if (closed) return
    timer ??= setTimeout(writeLater, delayMs)
    // The timer alone never keeps the process alive: `close` writes what is waiting.
    timer.unref?.()
  }

  return {
    /** The code a client was answered for the slot at this nonce. */
    set(nonce: number, code: string) {
      waiting.set(nonce, code)
      schedule()
    },
    /** The slot at this nonce is gone or new: a code still waiting was the old slot's. */
    forget(nonce: number) {
      waiting.delete(nonce)
    },
    /** A slot as read, with the code this process gave it and has not written yet. */
    overlay(slot: JournalSlot): JournalSlot {
      const code = waiting.get(slot.nonce)
      if (code !== undefined) slot.answer = code
      return slot
    },
    writeWaiting,
    /** Best effort: what is waiting is written now, and nothing after. */
    close() {
      closed = true
      clearTimeout(timer)
      try {
        if (waiting.size > 0) writeAlone()
      } catch {}
    },
  }
}

export type AnswerCodes = ReturnType<typeof createAnswerCodes>
