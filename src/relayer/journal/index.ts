// The relayer's journal: every tx the gas key signs, durable before broadcast.
export { createLocalClaims, type OrderClaims } from './claims.ts'
export { defaultJournalPath } from './journalPath.ts'
export { JournalLockedError } from './lock.ts'
export { type Journal, JournalMismatchError, openJournal } from './openJournal.ts'
export { JournalVersionError, journalVersion } from './schemaVersion.ts'
export type { Cooldown, JournalSlot, JournalTx, NewSlot, SignedTx, SlotResolution, SlotStatus } from './types.ts'
