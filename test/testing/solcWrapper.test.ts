// bin/solc.mjs, the solc-js wrapper the package ships for forge (`solc = "node_modules/order-relay/bin/solc.mjs"`):
// in a project laid out as npm installs the package, it answers --version with the project's
// solc, compiles an adapter importing IAdapter and IAdapterPayment through forge, and names
// the install command when the project has no solc.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const repo = join(import.meta.dir, '../..')
const solcVersion: string = JSON.parse(readFileSync(join(repo, 'node_modules/solc/package.json'), 'utf8')).version
const arch = process.arch === 'x64' ? 'amd64' : process.arch
const forge = join(repo, 'node_modules/@foundry-rs', `forge-${process.platform}-${arch}`, 'bin/forge')
const work = mkdtempSync(join(tmpdir(), 'order-relay-solc-'))
const wrapper = 'node_modules/order-relay/bin/solc.mjs'

/** A project with order-relay laid out as npm installs it (bin/, contracts/src/interfaces, package.json) and, when `solc`, the solc package. */
function project(name: string, solc: boolean): string {
  const root = join(work, name)
  const pkg = join(root, 'node_modules/order-relay')
  mkdirSync(join(pkg, 'contracts/src'), { recursive: true })
  cpSync(join(repo, 'bin'), join(pkg, 'bin'), { recursive: true })
  cpSync(join(repo, 'contracts/src/interfaces'), join(pkg, 'contracts/src/interfaces'), { recursive: true })
  cpSync(join(repo, 'package.json'), join(pkg, 'package.json'))
  if (solc) symlinkSync(realpathSync(join(repo, 'node_modules/solc')), join(root, 'node_modules/solc'))
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }))
  return root
}

async function run(cmd: string[], cwd: string) {
  const child = Bun.spawn(cmd, { cwd, stdout: 'pipe', stderr: 'pipe', env: { ...process.env, FOUNDRY_SOLC: undefined } })
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { code, out, err }
}

let withSolc: string
beforeAll(() => {
  withSolc = project('with-solc', true)
})
afterAll(() => rmSync(work, { recursive: true, force: true }))

test('it is executable and answers --version with the project\'s solc-js, as forge asks', async () => {
  const version = await run([join(withSolc, wrapper), '--version'], withSolc)
  expect([version.code, version.err]).toEqual([0, ''])
  // solc-js's own version string: the package's version and its commit.
  expect(version.out).toMatch(new RegExp(`^solc, the solidity compiler commandline interface\nVersion: ${solcVersion.replaceAll('.', '\\.')}\\+commit\\.[0-9a-f]{8}\\.Emscripten\\.clang\n$`))
  expect(await run([join(withSolc, wrapper), '--bin', 'x.sol'], withSolc)).toEqual({
    code: 2,
    out: '',
    err: 'order-relay solc: only --version and --standard-json are supported (this wraps solc-js for forge)\n',
  })
})

test('forge builds an adapter implementing IAdapter and IAdapterPayment with the example\'s foundry.toml', async () => {
  cpSync(join(repo, 'examples/contract-e2e/foundry.toml'), join(withSolc, 'foundry.toml'))
  mkdirSync(join(withSolc, 'src'))
  writeFileSync(
    join(withSolc, 'src/Priced.sol'),
    `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {IAdapter} from "order-relay/contracts/src/interfaces/IAdapter.sol";
import {IAdapterVaultPayment} from "order-relay/contracts/src/interfaces/IAdapterPayment.sol";

contract Priced is IAdapter, IAdapterVaultPayment {
    function defaultPayment() external pure returns (address, address, uint256) {
        return (address(1), address(2), 3);
    }

    function vaultPayment(uint256) external pure returns (Payment memory) {
        return Payment({token: address(1), payee: address(2), price: 3});
    }

    function grant(bytes32, address, address, address, uint256, bytes calldata) external pure returns (bytes memory) {
        return "";
    }
}
`,
  )
  const built = await run([forge, 'build'], withSolc)
  expect(built.code).toBe(0)
  expect(built.out).toContain(`Compiling 3 files with Solc ${solcVersion}`)
  const artifact = JSON.parse(readFileSync(join(withSolc, 'out/Priced.sol/Priced.json'), 'utf8'))
  const views = artifact.abi.filter((item: { type: string }) => item.type === 'function').map((item: { name: string }) => item.name).sort()
  expect(views).toEqual(['defaultPayment', 'grant', 'vaultPayment'])
  expect(existsSync(join(withSolc, 'out/IAdapterPayment.sol/IAdapterPayment.json'))).toBe(true)
}, 120_000)

test('without solc in the project it names the install command, with the version the package pins', async () => {
  const bare = project('bare', false)
  const pinned: string = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).devDependencies.solc
  expect(await run([join(bare, wrapper), '--version'], bare)).toEqual({
    code: 1,
    out: '',
    err: `order-relay solc: the solc npm package (solc-js) is not installed in ${bare}: npm install --save-dev solc@${pinned} (or the version your pragmas ask for)\n`,
  })
})
