/**
 * A money-path fix of docs/relayer-safety.md, and the small patch that takes it out again.
 * `alsoOut`: the fixes that cover the same failure, taken out with it. Without them this fix
 * alone stands between the faults and the bug, so the proof searches the build lacking them
 * too, and counts a seed only if it passes once this fix is back (src/simulator/proveFix.ts).
 * `replicasOnly`: the fix is in code only replicas run, so a single relayer's seed cannot
 * reach it; its proof runs the replica seeds alone (under their own numbers).
 */
export type FixProof = { name: string; fix: string; file: string; from: string; to: string; alsoOut?: readonly string[]; replicasOnly?: true }

/**
 * The fixes the simulator must find again when one is taken out: each a patch to the
 * copy of src/ the simulator then runs (production code never carries a switch for it).
 */
export const fixProofs: readonly FixProof[] = [
  {
    name: 'proven-refusals',
    fix: 'only a proven refusal frees a nonce: a send whose answer was lost may be pooled',
    file: 'src/relayer/submitter/sendRaw.ts',
    from: "  if (kind === 'nonceTaken' && known === false) return { kind: 'nonceTaken', error }\n  return { kind: 'unanswered', error }",
    to: "  if (kind === 'nonceTaken' && known === false) return { kind: 'nonceTaken', error }\n  return { kind: 'refused', error }",
  },
  {
    name: 'held-slots',
    fix: "the nonce keeper leaves alone the slots the batch sender holds (signed, broadcast not answered)",
    file: 'src/relayer/submitter/nonceKeeper.ts',
    from: 'const slots = journal.pending(slotsPerRound).filter((slot) => !life.held(slot.nonce))',
    to: 'const slots = journal.pending(slotsPerRound)',
  },
  {
    name: 'reorg-outcomes',
    fix: 'a reorg that takes a mined tx out makes its slot pending again',
    file: 'src/relayer/submitter/receiptWatcher.ts',
    from: '    life.reorged(gone)\n',
    to: '',
  },
  {
    name: 'reorg-mined-again',
    fix: 'a tx mined again after a reorg with another outcome is resolved again',
    file: 'src/relayer/submitter/receiptWatcher.ts',
    from: "const same = receipt && (receipt.status === '0x1') === (status !== 'reverted')",
    to: 'const same = receipt && status !== undefined',
  },
  {
    name: 'foreign-two-looks',
    fix: "the nonce keeper's second look before it calls a slot foreign (and again after a reorg)",
    file: 'src/relayer/submitter/nonceKeeper.ts',
    from: 'const first = suspects.get(nonce)',
    to: 'const first = { at, hash: looked.hash, time: 0 }',
  },
  {
    name: 'foreign-known-tx',
    fix: 'a slot whose tx the node says it mined is never called foreign',
    file: 'src/relayer/submitter/slotLookups.ts',
    from: '.filter((nonce) => !found.has(nonce) && !known.has(nonce))',
    to: '.filter((nonce) => !found.has(nonce))',
  },
  {
    name: 'nonce-at-head',
    fix: "the key's nonce is read at the head's number, not at `latest` (a block between the two reads makes the key's own tx look foreign)",
    file: 'src/relayer/submitter/chainReads.ts',
    from: 'nonce: await client.getTransactionCount({ address, blockNumber: at })',
    to: "nonce: await client.getTransactionCount({ address, blockTag: 'latest' })",
    alsoOut: ['foreign-two-looks', 'foreign-known-tx'],
  },
  {
    name: 'epoch-fence',
    fix: "replicas: a claim is fenced by the shared state's epoch (none is trusted under another epoch than Redis's)",
    file: 'src/relayer/replicas/claimBatch.ts',
    from: "  elseif ARGV[a + 2] ~= current then code = -1",
    to: '  elseif false then code = -1',
    replicasOnly: true,
  },
  {
    name: 'new-epoch-not-whole',
    fix: 'replicas: the shared state is not whole from the heartbeat that reads a new epoch',
    file: 'src/relayer/replicas/sharedState.ts',
    from: "      restoring('has a new epoch (it was started or emptied)')\n      options.hooks?.lost()",
    to: '      options.hooks?.lost()',
    alsoOut: ['announce-before-broadcast'],
    replicasOnly: true,
  },
  {
    name: 'lease-renewals',
    fix: "replicas: the heartbeat renews the leases of the claims held (an order held past 10 s, a slow signer's, keeps its claim)",
    file: 'src/relayer/replicas/redisClaims.ts',
    from: '      if (held.length === 0) return { ok: true, epochMoved: false, missing: [] }\n      const sentAt',
    to: '      return { ok: true, epochMoved: false, missing: [] }\n      const sentAt',
    replicasOnly: true,
  },
  {
    name: 'restore-window',
    fix: 'replicas: no replica takes a new order until the restore window has passed since the epoch was made',
    file: 'src/relayer/replicas/sharedState.ts',
    from: "    if (read.now < bornOf(read.epoch) + restoreWindowMs) {\n      if (view.state !== 'restoring')",
    to: "    if (false) {\n      if (view.state !== 'restoring')",
    replicasOnly: true,
  },
  {
    name: 'announce-before-broadcast',
    fix: "replicas: each order's signed tx is published in Redis, while its claim holds, before it is broadcast",
    file: 'src/relayer/submitter/batchSender.ts',
    from: 'const refused = late?.refused ?? (options.announcer && (await refusedAtAnnounce(requests, entries, options.announcer)))',
    to: 'const refused = late?.refused',
    replicasOnly: true,
  },
  {
    name: 'pending-republished',
    fix: 'replicas: a pending order is re-published for the whole outcome lifetime',
    file: 'src/relayer/replicas/republishOutcomes.ts',
    from: "const ttlMs = slot.status === 'pending' ? outcomeTtlMs : Math.max",
    to: 'const ttlMs = Math.max',
    replicasOnly: true,
  },
]
