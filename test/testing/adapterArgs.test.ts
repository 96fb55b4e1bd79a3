// `devnet --adapter PATH.json[:ARGS]` and `startDevnet({ adapters })`: how an artifact
// is read and how its constructor arguments are taken, and the message for each mistake.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseAbi } from 'viem'
import { parseAdapterSpec } from '../../src/cli/lib/adapterSpec.ts'
import { UsageError } from '../../src/cli/command.ts'
import { AdapterArtifactError, checkAdapterDeployment, constructorArgs, devnetAccounts, readAdapterArtifact } from '../../src/devnet/index.ts'
import { compileTicketAdapter } from './support/ticketAdapter.ts'

const dir = mkdtempSync(join(tmpdir(), 'order-relay-adapter-args-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const ticket = compileTicketAdapter(dir)
const broker = '0x5FbDB2315678afecb367f032d93F642f64180aa3'
const names = { broker, payee: devnetAccounts.payee.address } as const

test('PATH.json[:ARGS]: comma-separated words, or a JSON array', () => {
  expect(parseAdapterSpec('out/T.sol/T.json')).toEqual({ artifact: 'out/T.sol/T.json', args: [] })
  expect(parseAdapterSpec('out/T.sol/T.json:broker, 10000000 ,true')).toEqual({ artifact: 'out/T.sol/T.json', args: ['broker', '10000000', 'true'] })
  expect(parseAdapterSpec('a:b/T.json:["broker",[1,2],{"x":1}]')).toEqual({ artifact: 'a:b/T.json', args: ['broker', [1, 2], { x: 1 }] })
  expect(() => parseAdapterSpec('out/T.sol/T')).toThrow(UsageError)
  expect(() => parseAdapterSpec('T.json:[broker')).toThrow('--adapter T.json: the arguments after ":" start with "[" but are not a JSON array')
})

test('arguments by the constructor\'s types: names for addresses, integers from strings and numbers, booleans, bytes, arrays, tuples', () => {
  const abi = parseAbi(['constructor(address broker, uint256 price, int8 delta, bool open, bytes32 tag, string label, uint16[] caps, (address who, uint64 until) grant)'])
  const tag = `0x${'ab'.repeat(32)}`
  const args = constructorArgs(abi, ['broker', '10000000', -3, 'true', tag, 'hall A', '[1,2]', { who: 'payee', until: '99' }], names, 'Hall')
  expect(args).toEqual([broker, 10_000_000n, -3n, true, tag, 'hall A', [1n, 2n], { who: devnetAccounts.payee.address, until: 99n }])
  expect(constructorArgs(abi, [broker.toLowerCase(), 1n, '0x10', false, tag, '', [], ['payee', 1]], names, 'Hall')).toEqual([broker, 1n, 16n, false, tag, '', [], [devnetAccounts.payee.address, 1n]])
})

test('each mistake names the argument, what it must be, and the names the devnet knows', () => {
  const abi = parseAbi(['constructor(address broker, uint256 price)'])
  expect(() => constructorArgs(abi, ['broker'], names, 'Hall')).toThrow("Hall's constructor takes 2 arguments (address broker, uint256 price); got 1")
  expect(() => constructorArgs(abi, ['brokr', '1'], names, 'Hall')).toThrow(
    'Hall constructor argument broker (address): must be an address (0x + 40 hex digits) or one of broker, payee',
  )
  expect(() => constructorArgs(abi, ['broker', '1.5'], names, 'Hall')).toThrow('Hall constructor argument price (uint256): must be an integer (decimal, or 0x hex)')
  expect(() => constructorArgs(abi, ['broker', '1'], names, 'Hall')).not.toThrow()
})

test('artifacts: forge\'s (named after the file), hardhat\'s (contractName), and what cannot be deployed', () => {
  const forge = readAdapterArtifact(ticket)
  expect([forge.name, forge.bytecode.startsWith('0x') && forge.bytecode.length > 1000, forge.abi.some((item) => item.type === 'error' && item.name === 'SoldOut')]).toEqual(['TicketAdapter', true, true])
  const hardhat = join(dir, 'hardhat.json')
  writeFileSync(hardhat, JSON.stringify({ contractName: 'Seats', abi: forge.abi, bytecode: forge.bytecode }))
  expect(readAdapterArtifact(hardhat).name).toBe('Seats')

  expect(() => readAdapterArtifact(join(dir, 'missing.json'))).toThrow(`cannot read the artifact ${join(dir, 'missing.json')}: no such file (build the contract first, e.g. forge build)`)
  const iface = join(dir, 'IAdapter.json')
  writeFileSync(iface, JSON.stringify({ abi: forge.abi, bytecode: { object: '0x' } }))
  expect(() => readAdapterArtifact(iface)).toThrow(`${iface}: no creation bytecode (is IAdapter an interface or an abstract contract? deploy a concrete contract)`)
  const linked = join(dir, 'Linked.json')
  writeFileSync(linked, JSON.stringify({ abi: [], bytecode: { object: `0x6080__$${'a'.repeat(34)}$__00` } }))
  expect(() => readAdapterArtifact(linked)).toThrow(AdapterArtifactError)
  const notJson = join(dir, 'notjson.json')
  writeFileSync(notJson, 'nope')
  expect(() => readAdapterArtifact(notJson)).toThrow(`the artifact ${notJson} is not valid JSON`)
})

test('checked before anything starts: the real artifact with the devnet\'s names passes, a wrong count does not', () => {
  expect(() => checkAdapterDeployment({ artifact: ticket, args: ['broker', 'payToken', 'payee', '10000000', '2'] })).not.toThrow()
  expect(() => checkAdapterDeployment({ artifact: ticket, args: ['broker', 'payToken', 'seller', '10000000', '2'] })).toThrow(
    'TicketAdapter constructor argument seller_ (address): must be an address (0x + 40 hex digits) or one of broker, payToken, allocationAdapter, expressLaneAdapter, expressLaneAuction, attestedAdapter, registry, inbox, pool, escrow, deployer, relayer, consumer, attestor, laneOperator, borrower, lender, secondRelayer, payee, spare',
  )
})
