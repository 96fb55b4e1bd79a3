// The relayer's journal: every tx the gas key signs, durable before broadcast.
export { createLocalClaims, type OrderClaims } from './claims.ts'
export { createJournalPruning } from './pruning.ts'
export { defaultJournalPath } from './journalPath.ts'
export { JournalLockedError, lockHolder } from './lock.ts'
export { type Eip1559Fields, parseEip1559 } from './parseEip1559.ts'
export { type Journal, JournalMismatchError, type JournalReads, openJournal } from './openJournal.ts'
export { JournalVersionError, journalVersion } from './schemaVersion.ts'
export type { JournalSlot, JournalTx, NewSlot, ReopenedSlot, RevertRecord, SignedTx, SlotResolution, SlotStatus, JournalObserver } from './types.ts'
