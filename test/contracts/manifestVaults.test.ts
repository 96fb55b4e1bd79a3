// Manifest `vaults` entries carry what a slot costs: `price` (decimal string, base units of
// the manifest's payToken) and `payee` (address); a manifest without them still reads.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readManifest } from '../../src/chain/index.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-manifest-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const address = (byte: string): `0x${string}` => `0x${byte.repeat(20)}`
const base = {
  chainId: 421614,
  rpcUrl: 'http://127.0.0.1:8545',
  deployedAt: '1',
  contracts: Object.fromEntries(
    ['broker', 'payToken', 'allocationAdapter', 'expressLaneAdapter', 'expressLaneAuction', 'attestedAdapter', 'registry', 'inbox', 'pool', 'escrow'].map((name) => [name, address('11')]),
  ),
}

function manifestWith(vaults: unknown[]): string {
  const path = join(dir, `m${Math.random()}.json`)
  writeFileSync(path, JSON.stringify({ ...base, vaults }))
  return path
}

test('a vault with price and payee reads as written', () => {
  const vault = { vaultId: '1', slots: 1000, price: '10000000', payee: address('22') }
  expect(readManifest(manifestWith([vault])).vaults).toEqual([vault])
})

test('a vault without price and payee (an older manifest) still reads', () => {
  expect(readManifest(manifestWith([{ vaultId: '1', slots: 5 }])).vaults).toEqual([{ vaultId: '1', slots: 5 }])
})

test('a price that is not a decimal string, or a payee that is not an address, names the field', () => {
  const path = manifestWith([{ vaultId: '1', slots: 5, price: '1e6', payee: address('22') }])
  expect(() => readManifest(path)).toThrow(`manifest ${path} is invalid at vaults.0.price: must be a decimal string`)
  const other = manifestWith([{ vaultId: '1', slots: 5, price: '10', payee: '0x12' }])
  expect(() => readManifest(other)).toThrow(`manifest ${other} is invalid at vaults.0.payee: must be an address`)
})
