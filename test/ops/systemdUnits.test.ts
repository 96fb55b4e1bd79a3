// The systemd units in deploy/systemd/ carry the settings the relayer and the indexer rely on:
// the journal and the store inside the state directory, the keystore password as the
// credential the relayer reads, the preflight before every start, a stop timeout that covers
// the relayer's drain, and the hardening. `systemd-analyze verify` checks their syntax in
// .ci/run (scripts/ci/systemd-verify.sh).
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { relayerEnvironment } from '../../src/cli/commands/relayer.ts'
import { indexerEnvironment } from '../../src/indexer/config.ts'
import { relayerDefaults } from '../../src/relayer/index.ts'

const repoRoot = resolve(import.meta.dir, '../..')
const executable = '/usr/local/bin/order-relay'

type Unit = Map<string, string[]>

/** The `[Service]`, `[Unit]` and `[Install]` assignments of a unit file, `Section.Key` → values in order. */
function readUnit(name: string): Unit {
  const unit: Unit = new Map()
  let section = ''
  for (const raw of readFileSync(join(repoRoot, 'deploy/systemd', name), 'utf8').split('\n')) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const header = /^\[(\w+)\]$/.exec(line)
    if (header) {
      section = header[1]!
      continue
    }
    const at = line.indexOf('=')
    const key = `${section}.${line.slice(0, at)}`
    unit.set(key, [...(unit.get(key) ?? []), line.slice(at + 1)])
  }
  return unit
}

/** The variables a unit sets with Environment=, name → value. */
const environmentOf = (unit: Unit) => new Map((unit.get('Service.Environment') ?? []).map((each) => [each.slice(0, each.indexOf('=')), each.slice(each.indexOf('=') + 1)]))

/** Variable names listed in a command's `--help` environment lines. */
const variablesOf = (lines: readonly string[]) => lines.map((line) => line.split(/\s+/)[0]!)

const hardening = {
  'Service.User': ['order-relay'],
  'Service.ProtectSystem': ['strict'],
  'Service.ProtectHome': ['yes'],
  'Service.PrivateTmp': ['yes'],
  'Service.NoNewPrivileges': ['yes'],
  'Service.CapabilityBoundingSet': [''],
  'Service.RestrictAddressFamilies': ['AF_INET AF_INET6 AF_UNIX'],
  'Service.SystemCallFilter': ['@system-service', '~@privileged @resources'],
  'Service.Restart': ['on-failure'],
  'Service.KillSignal': ['SIGTERM'],
}

describe('deploy/systemd/order-relay.service (relayer)', () => {
  const unit = readUnit('order-relay.service')

  test('runs the relayer after the preflight, as the order-relay user, with the hardening', () => {
    expect(unit.get('Service.ExecStartPre')).toEqual([`${executable} check --relayer`])
    expect(unit.get('Service.ExecStart')).toEqual([`${executable} relayer`])
    for (const [key, values] of Object.entries(hardening)) expect({ key, values: unit.get(key) }).toEqual({ key, values })
    // Bun's JIT needs writable and executable memory: the setting would stop the runtime.
    expect(unit.has('Service.MemoryDenyWriteExecute')).toBe(false)
  })

  test('keeps the journal (RELAYER_DB) inside its state directory', () => {
    expect(unit.get('Service.StateDirectory')).toEqual(['order-relay'])
    expect(environmentOf(unit).get('RELAYER_DB')).toBe('%S/order-relay/journal.sqlite')
    expect(variablesOf(relayerEnvironment)).toContain('RELAYER_DB')
    expect(unit.get('Service.EnvironmentFile')).toEqual(['/etc/order-relay/relayer.env'])
  })

  test('hands the keystore password over as the credential named after RELAYER_KEYSTORE_PASSWORD_FILE', () => {
    // The relayer reads $CREDENTIALS_DIRECTORY/RELAYER_KEYSTORE_PASSWORD_FILE when the variable is unset.
    expect(unit.get('Service.LoadCredential')).toEqual(['RELAYER_KEYSTORE_PASSWORD_FILE:/etc/order-relay/keystore-password'])
    expect(environmentOf(unit).has('RELAYER_KEYSTORE_PASSWORD_FILE')).toBe(false)
    expect(environmentOf(unit).has('RELAYER_PK')).toBe(false)
  })

  test('waits long enough on SIGTERM for the drain: keep-alive quiet, every receipt, answers delivered', () => {
    // createRelayer's stop: at most 1 s for keep-alive connections to go quiet, the orders in
    // flight up to RELAYER_RECEIPT_TIMEOUT_MS, then 10 s for their answers to reach clients.
    const drainSeconds = 1 + relayerDefaults.receiptTimeoutMs / 1000 + 10
    const timeoutStopSeconds = Number(/^(\d+)s$/.exec(unit.get('Service.TimeoutStopSec')?.[0] ?? '')?.[1])
    expect(timeoutStopSeconds).toBe(90)
    expect(timeoutStopSeconds).toBeGreaterThan(drainSeconds)
    expect(unit.get('Service.KillMode')).toEqual(['mixed'])
  })
})

describe('deploy/systemd/order-relay-indexer.service', () => {
  const unit = readUnit('order-relay-indexer.service')

  test('runs the indexer after its preflight, as the order-relay user, with the hardening', () => {
    expect(unit.get('Service.ExecStartPre')).toEqual([`${executable} check --indexer`])
    expect(unit.get('Service.ExecStart')).toEqual([`${executable} indexer`])
    for (const [key, values] of Object.entries(hardening)) expect({ key, values: unit.get(key) }).toEqual({ key, values })
    expect(unit.has('Service.MemoryDenyWriteExecute')).toBe(false)
    expect(unit.has('Service.LoadCredential')).toBe(false)
  })

  test('keeps the store (INDEXER_DB) inside its own state directory', () => {
    expect(unit.get('Service.StateDirectory')).toEqual(['order-relay-indexer'])
    expect(environmentOf(unit).get('INDEXER_DB')).toBe('%S/order-relay-indexer/store.sqlite')
    expect(variablesOf(indexerEnvironment)).toContain('INDEXER_DB')
    expect(unit.get('Service.EnvironmentFile')).toEqual(['/etc/order-relay/indexer.env'])
  })
})

test('every variable a unit or an example settings file sets is one the commands read', () => {
  const known = new Set([...variablesOf(relayerEnvironment), ...variablesOf(indexerEnvironment)])
  const set = [...environmentOf(readUnit('order-relay.service')).keys(), ...environmentOf(readUnit('order-relay-indexer.service')).keys()]
  for (const file of ['relayer.env.example', 'indexer.env.example']) {
    for (const line of readFileSync(join(repoRoot, 'deploy/systemd', file), 'utf8').split('\n')) {
      const assignment = /^#?\s*([A-Z][A-Z0-9_]+)=/.exec(line)
      if (assignment) set.push(assignment[1]!)
    }
  }
  // Variables of the gas key's other sources (keystore, remote signer) are read by the signers.
  const signerVariables = new Set(['RELAYER_KEYSTORE', 'RELAYER_SIGNER_URL', 'RELAYER_SIGNER_ADDRESS'])
  expect(set.filter((name) => !known.has(name) && !signerVariables.has(name))).toEqual([])
  expect(set).toContain('RELAYER_KEYSTORE')
})
