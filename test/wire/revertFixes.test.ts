// The fix line fits the failure: one per known revert, keyed on the decoded revert in
// the relayer's message (as test/relayer/reverts.test.ts shows them), and distinct
// between reverts, rather than one generic "fund the key, pick an open vault" for all.
import { expect, test } from 'bun:test'
import { findRevertFix, fixFor, relayErrorCodes, revertFixes, unknownRevertFix } from '../../src/wire/index.ts'

const tx = `0x${'ab'.repeat(32)}`
const fixOf = (revert: string) => revertFixes.find((entry) => entry.revert === revert)!.fix

// [the message a relayer answers with WOULD_REVERT, the revert whose fix it gets]
const messages: [string, string][] = [
  ['would revert: FeeTooHigh()', 'FeeTooHigh()'],
  ['would revert: AllocationSoldOut(vaultId=7)', 'AllocationSoldOut(vaultId)'],
  ['would revert: NoLaneControl()', 'NoLaneControl()'],
  ['would revert: BadAttestation()', 'BadAttestation()'],
  ['would revert: AttestationExpired()', 'AttestationExpired()'],
  ['would revert: AttestationUsed()', 'AttestationUsed()'],
  ['would revert: NotBroker()', 'NotBroker()'],
  ['would revert: ZeroAddress()', 'ZeroAddress()'],
  ['would revert: ReentrancyGuardReentrantCall()', 'ReentrancyGuardReentrantCall()'],
  ['would revert: invalid signature', 'invalid signature'],
  [`would revert: authorization used (already settled in tx ${tx}); build a new order with a fresh nonce`, 'authorization used'],
  [`reverted on chain after broadcast in tx ${tx}: authorization used (the order was settled in tx ${tx})`, 'authorization used'],
  [`would revert: authorization used (the consumer cancelled this authorization in tx ${tx}; nothing was settled); build a new order with a fresh nonce`, 'authorization used (cancelled)'],
  [`reverted on chain after broadcast in tx ${tx}: FiatTokenV2: authorization is used or canceled (the consumer cancelled this authorization in tx ${tx}; nothing was settled); build a new order with a fresh nonce`, 'authorization used (cancelled)'],
  ['would revert: authorization expired; re-sign with a fresh window', 'authorization expired'],
  ['would revert: FiatTokenV2: authorization is expired', 'authorization expired'],
  ['would revert: authorization not yet valid', 'authorization not yet valid'],
  ['would revert: FiatTokenV2: authorization is not yet valid', 'authorization not yet valid'],
  ['would revert: Pausable: paused', 'Pausable: paused'],
  ['would revert: EnforcedPause()', 'Pausable: paused'],
  ['would revert: Blacklistable: account is blacklisted', 'Blacklistable: account is blacklisted'],
  ['would revert: SafeERC20FailedOperation(token=0x5FbDB2315678afecb367f032d93F642f64180aa3)', 'SafeERC20FailedOperation(token)'],
  [
    'would revert: ERC20InsufficientBalance(sender=0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC, balance=5, needed=10000000)',
    'ERC20InsufficientBalance(sender, balance, needed)',
  ],
  [
    'would revert: WrongPayment(token=0x5FbDB2315678afecb367f032d93F642f64180aa3, payee=0x90F79bf6EB2c4f870365E785982E1f101E93b906, amount=10000000)',
    'WrongPayment(token, payee, amount)',
  ],
]

test.each(messages)('%s → the fix of %s', (message, revert) => {
  expect(findRevertFix(message)?.revert).toBe(revert)
  expect(fixFor('WOULD_REVERT', message)).toBe(fixOf(revert))
})

test('every known revert has its own fix line, none of them SPEC\'s generic one', () => {
  const fixes = revertFixes.map((entry) => entry.fix)
  expect(new Set(fixes).size).toBe(fixes.length)
  expect(fixes).not.toContain('Fix inputs (fund the key, pick an open vault).')
  expect(fixOf('Pausable: paused')).not.toBe(fixOf('Blacklistable: account is blacklisted'))
  expect(fixOf('FeeTooHigh()')).toContain('feeBps')
  expect(fixOf('Blacklistable: account is blacklisted')).toContain('choose another relayer')
})

test('an unknown revert gets the default; other codes keep their own fix', () => {
  expect(fixFor('WOULD_REVERT', 'would revert: SomethingNew(x=1)')).toBe(unknownRevertFix)
  expect(fixFor('WOULD_REVERT', 'would revert: execution reverted without a reason')).toBe(unknownRevertFix)
  expect(fixFor('AUTH_EXPIRED', 'authorization window has passed (validBefore 5, chain time 9); re-sign with a fresh window')).toBe(
    relayErrorCodes.AUTH_EXPIRED.fix,
  )
  expect(fixFor('AUTH_EXPIRED', 'would revert: authorization expired; re-sign with a fresh window')).toBe(fixOf('authorization expired'))
  expect(fixFor('FEE_BELOW_FLOOR', 'feeBps 10 is below this relayer\'s floor 50')).toBe('Raise feeBps or choose another relayer (see GET /info).')
  expect(fixFor('RATE_LIMITED', 'too many requests')).toBe('Wait for the Retry-After delay, then retry.')
  expect(fixFor('NETWORK', 'connection refused')).toContain('could not be reached')
  expect(fixFor('NOT_A_CODE', '')).toBeUndefined()
})

// [code, the relayer's exact message, words the fix must contain]: one code, several causes.
const causes: [string, string, string][] = [
  ['MALFORMED_ORDER', 'malformed request: Content-Type must be application/json', 'Content-Type: application/json'],
  ['MALFORMED_ORDER', 'malformed request: body is not valid JSON', 'one JSON object'],
  ['MALFORMED_ORDER', 'malformed request: body is not valid UTF-8', 'UTF-8 encoded'],
  ['MALFORMED_ORDER', 'malformed request: body must be a JSON object', 'one JSON object'],
  ['MALFORMED_ORDER', 'malformed request: body is larger than 65536 bytes', 'at most 64 KiB'],
  ['MALFORMED_ORDER', 'chainId is not one this relayer serves (it serves 421614; see GET /info)', 'supportedChainIds'],
  ['MALFORMED_ORDER', 'malformed request: order.feeBps is a uint16', 'feeBps is uint16'],
  ['UPSTREAM_RPC', `broadcast as tx ${tx} but no receipt within 60000 ms; check the tx before retrying`, 'check that tx'],
  ['UPSTREAM_RPC', "the relayer's RPC failed during simulation; retry or try another relayer", 'Retry or try another relayer.'],
]

test.each(causes)('%s "%s" → a fix about %s', (code, message, words) => {
  expect(fixFor(code, message)).toContain(words)
})
