import type { Hex } from 'viem'
import type { OutcomeWrite } from './sharedOutcomes.ts'
import { publishFunction } from './sharedOutcomes.ts'

/**
 * One step of a claim batch, on one order's claim key and outcome key:
 * - `claim`: take the claim with `token` (`SET NX PX lease`), or renew it when it already
 *   holds `token` (a replica re-publishing a claim Redis kept), fenced by `epoch`, and
 *   read the order's outcome;
 * - `renew`: extend the lease of the claim while it still holds `token`, fenced by `epoch`;
 * - `announce`: while the claim still holds `token` (fenced by `epoch`), extend its lease and
 *   publish `write` (the order's tx, pending): the tx is known here before it is broadcast,
 *   so a replica that takes the claim once its lease ends finds it;
 * - `settle`: publish `write` (when given) then release the claim while it still holds
 *   `token` (when given): the outcome is there before the claim is free.
 */
export type BatchStep =
  | { kind: 'claim'; orderHash: Hex; token: string; epoch: string }
  | { kind: 'renew'; orderHash: Hex; token: string; epoch: string }
  | { kind: 'announce'; orderHash: Hex; token: string; epoch: string; write: OutcomeWrite }
  | { kind: 'settle'; orderHash: Hex; token?: string; write?: OutcomeWrite }

/** A step's answer: -1 fenced out (the epoch is not the one given), 0 held by another (claim) or gone (renew, announce: nothing published), 1 done; a taken claim's outcome as stored (null: none). */
export type StepResult = { code: -1 | 0 | 1; outcome: string | null }

/**
 * The claim batch, one Lua script: every step of one call runs in order, atomically,
 * in one round trip. KEYS[1] is the epoch, then a claim key and an outcome key per
 * step; ARGV[1] the lease in ms, then seven ARGV per step: kind, token, the epoch the
 * replica knows (a `claim` or `renew` under another epoch than Redis's is -1: no claim
 * is trusted until every replica has re-published), and the outcome's JSON, lifetime,
 * mode and tx field (`publish`, sharedOutcomes.ts). Returns {Redis's epoch, codes, outcomes}.
 */
const batchScript = `${publishFunction}
local current = redis.call('GET', KEYS[1]) or ''
local codes, outcomes = {}, {}
local step = 0
for a = 2, #ARGV, 7 do
  step = step + 1
  local kind, token = ARGV[a], ARGV[a + 1]
  local claim, outcome = KEYS[step * 2], KEYS[step * 2 + 1]
  local code, read = 1, ''
  if kind == 'settle' then
    if ARGV[a + 3] ~= '' then publish(outcome, ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6]) end
    if token ~= '' and redis.call('GET', claim) == token then redis.call('DEL', claim) end
  elseif ARGV[a + 2] ~= current then code = -1
  elseif kind == 'claim' then
    local taken = redis.call('SET', claim, token, 'NX', 'PX', ARGV[1])
    if not taken and redis.call('GET', claim) == token then taken = redis.call('PEXPIRE', claim, ARGV[1]) == 1 end
    if taken then read = redis.call('GET', outcome) or '' else code = 0 end
  elseif redis.call('GET', claim) == token then
    redis.call('PEXPIRE', claim, ARGV[1])
    if kind == 'announce' then publish(outcome, ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6]) end
  else code = 0 end
  codes[step] = code
  outcomes[step] = read
end
return {current, codes, outcomes}
`

/**
 * The `EVAL` arguments of a batch of `steps` (in order), for claims leased `leaseMs`.
 * @example
 * const steps: BatchStep[] = [{ kind: 'claim', orderHash, token, epoch }]
 * const answer = batchResults(await client.send('EVAL', batchCommand(steps, keys, 10_000)), steps.length)
 */
export function batchCommand(steps: readonly BatchStep[], keys: { epoch: string; claim(orderHash: Hex): string; outcome(orderHash: Hex): string }, leaseMs: number): string[] {
  const stepKeys = steps.flatMap((step) => [keys.claim(step.orderHash), keys.outcome(step.orderHash)])
  const stepArgs = steps.flatMap((step) => {
    const write = step.kind === 'settle' || step.kind === 'announce' ? step.write : undefined
    return [step.kind, step.token ?? '', step.kind === 'settle' ? '' : step.epoch, write?.json ?? '', write?.ttlMs ?? '', write?.mode ?? '', write?.txField ?? '']
  })
  return [batchScript, String(1 + stepKeys.length), keys.epoch, ...stepKeys, String(leaseMs), ...stepArgs]
}

/**
 * The script's answer read back: Redis's epoch ('' when none), one result per step.
 * @throws Error when the answer is not the script's (`steps` results expected)
 */
export function batchResults(value: unknown, steps: number): { epoch: string; results: StepResult[] } {
  const [epoch, codes, outcomes] = (Array.isArray(value) ? value : []) as [unknown, unknown, unknown]
  if (typeof epoch !== 'string' || !Array.isArray(codes) || !Array.isArray(outcomes) || codes.length !== steps || outcomes.length !== steps) {
    throw new Error(`the claim script answered ${JSON.stringify(value)?.slice(0, 200)}, not ${steps} results`)
  }
  return {
    epoch,
    results: codes.map((code, i) => ({ code: code as StepResult['code'], outcome: outcomes[i] ? outcomes[i]! : null })),
  }
}
