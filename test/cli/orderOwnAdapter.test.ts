// `order` to an adapter of the contract developer's own: `devnet --adapter` deploys it and
// prints the command for it; `order --adapter <its name> --params 0x…` settles an order
// to it, and a name the manifest lacks or a price it cannot read is a usage error naming
// the fix.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Subprocess } from 'bun'
import { encodeAbiParameters } from 'viem'
import { devnetAccounts } from '../../src/devnet/index.ts'
import { freePortBase, watchOutput } from '../helpers/processes.ts'
import { compileTicketAdapter } from '../testing/support/ticketAdapter.ts'

const repo = resolve(import.meta.dir, '../..')
const dir = mkdtempSync(join(tmpdir(), 'order-own-adapter-'))
const manifest = join(dir, 'manifest.json')
const price = 10_000_000n
let devnet: Subprocess<'ignore', 'pipe', 'pipe'>
let printed: string

beforeAll(async () => {
  const artifact = compileTicketAdapter(dir)
  const base = await freePortBase()
  devnet = Bun.spawn([process.execPath, 'src/cli/main.ts', 'devnet', '--port-base', String(base), '--manifest', manifest, '--adapter', `${artifact}:broker,payToken,payee,${price},3`], {
    cwd: repo,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const output = watchOutput(devnet)
  await output.waitFor(/Ctrl-C stops everything/, 90_000)
  printed = output.text
}, 120_000)

afterAll(async () => {
  devnet?.kill('SIGTERM')
  await devnet?.exited
  rmSync(dir, { recursive: true, force: true })
})

async function order(...argv: string[]) {
  const child = Bun.spawn([process.execPath, 'src/cli/main.ts', 'order', '--manifest', manifest, ...argv], { cwd: repo, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { out, err, code }
}

const seat = (n: bigint) => encodeAbiParameters([{ type: 'uint256' }], [n])

test('the devnet prints the command for the adapter it deployed: its price comes from its defaultPayment() view', () => {
  expect(printed).toContain('an order to TicketAdapter (--params ABI-encoded as its grant decodes them):')
  expect(printed).toContain(`order --manifest ${manifest} --adapter TicketAdapter --params 0x…\n`)
})

test('order --adapter TicketAdapter --params alone: priced from defaultPayment(), settled', async () => {
  const { out, code } = await order('--adapter', 'TicketAdapter', '--params', seat(1n))
  expect(code).toBe(0)
  expect(JSON.parse(out).receipt.fields.seat).toBe('1')
}, 60_000)

test('order --adapter TicketAdapter --params: settles through the relayer, the receipt named after the adapter', async () => {
  const { out, err, code } = await order('--adapter', 'TicketAdapter', '--params', seat(0n), '--amount', String(price), '--payee', devnetAccounts.payee.address)
  expect({ code, err: err.includes('relayer http://127.0.0.1:') }).toEqual({ code: 0, err: true })
  const success = JSON.parse(out)
  expect([success.ok, success.receipt.adapter, success.receipt.event, success.receipt.fields.seat]).toEqual([true, 'TicketAdapter', 'TicketIssued', '0'])
}, 60_000)

test('the same seat again: the adapter\'s custom error, decoded', async () => {
  const { err, code } = await order('--adapter', 'TicketAdapter', '--params', seat(0n), '--amount', String(price), '--payee', devnetAccounts.payee.address)
  expect(code).toBe(1)
  expect(err).toMatch(/WOULD_REVERT \(HTTP 422\): would revert: SeatTaken\(seat=0, heldBy=0x[0-9a-f]{64}\)/)
}, 60_000)

test('an adapter whose manifest entry has no defaultPayment() view: --amount and --payee are asked for before anything is contacted', async () => {
  const withoutView = join(dir, 'without-view.json')
  const written = JSON.parse(await Bun.file(manifest).text())
  written.adapters[0].abi = written.adapters[0].abi.filter((item: { name?: string }) => item.name !== 'defaultPayment')
  await Bun.write(withoutView, JSON.stringify(written))
  const child = Bun.spawn([process.execPath, 'src/cli/main.ts', 'order', '--manifest', withoutView, '--adapter', 'TicketAdapter', '--params', seat(2n)], { cwd: repo, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const [err, code] = await Promise.all([new Response(child.stderr).text(), child.exited])
  expect([code, err.trim().split('\n')[0]]).toEqual([
    2,
    'order-relay order: TicketAdapter has no defaultPayment() view to read its price from: pass --amount UNITS and --payee ADDR (what its grant checks)',
  ])
}, 60_000)

test('usage errors: a name the manifest lacks, params that are not hex', async () => {
  const unknown = await order('--adapter', 'Nope')
  expect([unknown.code, unknown.err.trim().split('\n')[0]]).toEqual([
    2,
    'order-relay order: --adapter "Nope" is neither a built-in adapter nor one of the manifest\'s adapters: use one of allocation, express-lane, attested, TicketAdapter',
  ])
  const notHex = await order('--adapter', 'TicketAdapter', '--params', '0x123')
  expect([notHex.code, notHex.err.trim().split('\n')[0]]).toEqual([
    2,
    'order-relay order: --params must be hex: 0x followed by an even number of hex digits (ABI-encode it, e.g. cast abi-encode "f(uint256)" 0)',
  ])
}, 60_000)
