// From outside, as the README of order-relay says: `npx order-relay devnet` with this
// project's adapter (`--adapter ARTIFACT:ARGS`), then a plain order-relay/client order
// for it from Node, settled through the devnet's relayer.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRelayClient, signOrder } from 'order-relay/client'
import { createPublicClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { artifact, price, seat } from './ticket.ts'

const dir = mkdtempSync(join(tmpdir(), 'contract-e2e-'))
const manifestPath = join(dir, 'manifest.json')
let devnet: ChildProcess
let output = ''

beforeAll(async () => {
  // A process group of its own: npx does not pass signals on to what it runs, so afterAll signals the whole group.
  devnet = spawn('npx', ['order-relay', 'devnet', '--port-base', '0', '--manifest', manifestPath, '--adapter', `${artifact}:broker,payToken,payee,${price},2`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  devnet.stdout?.on('data', (chunk) => (output += chunk))
  devnet.stderr?.on('data', (chunk) => (output += chunk))
  // Ready when it says so (it writes the manifest just before); gone if it exits first.
  await new Promise<void>((resolve, reject) => {
    devnet.stdout?.on('data', () => output.includes('devnet ready:') && existsSync(manifestPath) && resolve())
    devnet.once('exit', (code) => reject(new Error(`npx order-relay devnet exited with ${code}:\n${output}`)))
  })
})

afterAll(async () => {
  if (devnet?.pid && devnet.exitCode === null) {
    const exited = new Promise((resolve) => devnet.once('exit', resolve))
    // npx, the order-relay bin, bun and anvil: SIGTERM to each, as Ctrl-C in a terminal does.
    process.kill(-devnet.pid, 'SIGTERM')
    await exited
  }
  rmSync(dir, { recursive: true, force: true })
})

test('npx order-relay devnet --adapter: the manifest names the adapter, and an order for it settles', async () => {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
  expect(manifest.adapters.map((adapter: { name: string }) => adapter.name)).toEqual(['TicketAdapter'])
  expect(output).toContain(`adapter  TicketAdapter ${manifest.adapters[0].address}`)
  const account = privateKeyToAccount(manifest.accounts.consumer.privateKey)
  const order = {
    consumer: account.address,
    adapter: manifest.adapters[0].address,
    params: seat(1n),
    payToken: manifest.contracts.payToken,
    payee: '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f', // the devnet payee (anvil's account 8)
    amount: price.toString(),
    nonce: String(Date.now()),
    feeBps: 50,
  }
  const publicClient = createPublicClient({ transport: http(manifest.rpcUrl) })
  const request = await signOrder({ account, order, broker: manifest.contracts.broker, chainId: manifest.chainId, client: publicClient })
  const success = await createRelayClient({ url: manifest.relayerUrl }).broker(request)
  expect(success.receipt).toEqual({ adapter: 'TicketAdapter', event: 'TicketIssued', fields: { orderHash: success.orderHash, holder: account.address, seat: '1' } })
})
