// The example project's adapter (examples/contract-e2e/src/TicketAdapter.sol), compiled
// with the project's solc-js as forge would, into a forge-shaped artifact file: the
// contract developer's own adapter, which the project's relayer does not know.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'

const repo = resolve(import.meta.dir, '../../..')
const source = join(repo, 'examples/contract-e2e/src/TicketAdapter.sol')

/** Compiles TicketAdapter into `dir/TicketAdapter.json` (`{ abi, bytecode: { object } }`) and returns its path. */
export function compileTicketAdapter(dir: string): string {
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string, callbacks: { import(path: string): { contents: string } | { error: string } }): string }
  const input = {
    language: 'Solidity',
    sources: { 'src/TicketAdapter.sol': { content: readFileSync(source, 'utf8') } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  }
  // The package's contracts, as `order-relay/…` resolves in a project that installed it.
  const findImport = (path: string) =>
    path.startsWith('order-relay/') ? { contents: readFileSync(join(repo, path.slice('order-relay/'.length)), 'utf8') } : { error: `not found: ${path}` }
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport }))
  const errors = (output.errors ?? []).filter((error: { severity: string }) => error.severity === 'error')
  if (errors.length > 0) throw new Error(`TicketAdapter.sol does not compile:\n${errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n')}`)
  const contract = output.contracts['src/TicketAdapter.sol'].TicketAdapter
  mkdirSync(dir, { recursive: true })
  const path = join(dir, 'TicketAdapter.json')
  writeFileSync(path, JSON.stringify({ abi: contract.abi, bytecode: { object: `0x${contract.evm.bytecode.object}` } }))
  return path
}
