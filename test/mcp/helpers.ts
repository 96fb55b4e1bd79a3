import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { Abi, Account, Chain, Hex, Transport, WalletClient } from 'viem'
import { lienEscrowAbi, lienInboxAbi, lienPoolAbi, type Manifest, mockEIP3009TokenAbi } from '../../src/chain/index.ts'
import type { Devnet } from '../../src/devnet/index.ts'

export const repoRoot = resolve(import.meta.dir, '../..')

const tempDirs: string[] = []

/** Removes every directory `tempDir` made (each test file that makes one calls this in its afterAll). */
export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** A fresh temporary directory for manifests and receipt files (see removeTempDirs). */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'order-relay-mcp-'))
  tempDirs.push(dir)
  return dir
}

/** Writes `value` as JSON to `dir/name` and returns the path. */
export function writeJson(dir: string, name: string, value: unknown): string {
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify(value, null, 2))
  return path
}

/** Writes a manifest file (the devnet's, or any) and returns its path. */
export const writeManifest = (dir: string, manifest: Manifest, name = 'manifest.json') => writeJson(dir, name, manifest)

/** Sends one contract call from a devnet role and waits for a successful receipt. */
export async function send(devnet: Devnet, role: 'lender' | 'borrower', address: string, abi: Abi, functionName: string, args: unknown[]) {
  const wallet: WalletClient<Transport, Chain, Account> = devnet.wallet(role)
  const hash = await wallet.writeContract({ address: address as Hex, abi, functionName, args } as never)
  const receipt = await devnet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  if (receipt.status !== 'success') throw new Error(`${functionName} reverted in ${hash}`)
  return receipt
}

/** The debtor flow: the lender proposes lien `lienId` on the borrower until `expiresAt`, the borrower confirms it. */
export async function recordLien(devnet: Devnet, lienId: Hex, expiresAt: bigint) {
  const { inbox } = devnet.manifest.contracts
  await send(devnet, 'lender', inbox, lienInboxAbi, 'propose', [lienId, devnet.accounts.borrower.address, expiresAt])
  return send(devnet, 'borrower', inbox, lienInboxAbi, 'confirm', [lienId])
}

/** The lender funds recorded lien `lienId` from a pool deposit; the borrower repays it in full, which releases it. */
export async function fundAndRepay(devnet: Devnet, lienId: Hex, amount: bigint) {
  const { payToken, pool, escrow } = devnet.manifest.contracts
  await send(devnet, 'lender', payToken, mockEIP3009TokenAbi, 'approve', [pool, amount])
  await send(devnet, 'lender', pool, lienPoolAbi, 'deposit', [amount])
  await send(devnet, 'lender', pool, lienPoolAbi, 'fund', [lienId, amount])
  await send(devnet, 'borrower', payToken, mockEIP3009TokenAbi, 'approve', [escrow, amount])
  return send(devnet, 'borrower', escrow, lienEscrowAbi, 'repay', [lienId, amount])
}

/** Starts `order-relay mcp` as an MCP client (an agent) would, and connects the SDK's Client to it over stdio. */
export async function connectMcp(args: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['src/cli/main.ts', 'mcp', ...args],
    cwd: repoRoot,
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
  })
  const stderr: string[] = []
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()))
  const client = new Client({ name: 'order-relay-test', version: '1.0.0' })
  await client.connect(transport)
  return { client, transport, stderr: () => stderr.join(''), close: () => client.close() }
}

/** Runs the CLI (`bun src/cli/main.ts …`) and resolves with its exit code and output. */
export async function runCli(args: string[]) {
  const child = Bun.spawn([process.execPath, 'src/cli/main.ts', ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { code, stdout, stderr }
}
