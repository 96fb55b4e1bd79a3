// The executable as a user runs it: built with `bun build --compile`, started with
// only the documented flags and variables, stopped with SIGTERM.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { createRelayClient } from '../../src/client/index.ts'
import { devnetAccounts, type Devnet, manifestTokensVariable, startDevnet } from '../../src/devnet/index.ts'
import type { ActivitySnapshot } from '../../src/wire/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { freePortBase, processesMatching, watchOutput } from '../helpers/processes.ts'

const repoRoot = resolve(import.meta.dir, '../..')
const dir = mkdtempSync(join(tmpdir(), 'order-relay-bin-'))
const exe = join(dir, 'order-relay')

beforeAll(async () => {
  const build = Bun.spawnSync(['bun', 'scripts/build.ts', '--skip-contracts', '--outfile', exe], { stdout: 'pipe', stderr: 'pipe' })
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`)
}, 120_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

const run = (args: string[], env: Record<string, string> = {}) => {
  const result = Bun.spawnSync([exe, ...args], { stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '', ...env } })
  return { code: result.exitCode, out: result.stdout.toString(), err: result.stderr.toString() }
}

test('--version, --help, unknown command and bad flag', () => {
  const packageVersion = JSON.parse(readFileSync('package.json', 'utf8')).version
  // The version alone on the first line (what scripts read), then what the build was made from.
  const commit = Bun.spawnSync(['git', 'rev-parse', 'HEAD'], { stdout: 'pipe' }).stdout.toString().trim()
  const printed = run(['--version'])
  expect(printed.code).toBe(0)
  expect(printed.err).toBe('')
  const lines = printed.out.split('\n')
  expect(lines[0]).toBe(packageVersion)
  const dirty = Bun.spawnSync(['git', 'status', '--porcelain'], { stdout: 'pipe' }).stdout.toString() !== ''
  expect(lines[1]).toBe(`commit: ${commit}${dirty ? ' (dirty: built from a tree with uncommitted changes)' : ''}`)
  expect(lines[2]).toMatch(/^built: {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  expect(lines.slice(3)).toEqual([`bun:    ${Bun.version}`, ''])
  const help = run(['--help'])
  expect(help.code).toBe(0)
  for (const name of ['serve', 'relayer', 'indexer', 'devnet', 'mcp', 'deploy', 'order', 'verify-receipt']) expect(help.out).toContain(`  ${name} `)
  // The hint names this executable by its absolute path: it works from any directory.
  expect(help.out).toContain(`Run \`${exe} <command> --help\` for its options and environment variables.`)
  const unknown = run(['frobnicate'])
  expect(unknown.code).toBe(2)
  expect(unknown.err.split('\n')[0]).toBe('order-relay: unknown command "frobnicate"')
  expect(unknown.err).toContain('Usage: order-relay <command>')
  const badFlag = run(['devnet', '--bogus'])
  expect(badFlag.code).toBe(2)
  expect(badFlag.err.split('\n')[0]).toStartWith("order-relay devnet: Unknown option '--bogus'")
})

test('an executable found on PATH as order-relay calls itself order-relay in its hints', () => {
  const onPath = Bun.spawnSync(['order-relay', '--help'], { cwd: '/', stdout: 'pipe', stderr: 'pipe', env: { PATH: `${dir}:/usr/bin:/bin` } })
  expect(onPath.stdout.toString()).toContain('Run `order-relay <command> --help` for its options and environment variables.')
  const usage = Bun.spawnSync(['order-relay', 'order', '--bogus'], { cwd: '/', stdout: 'pipe', stderr: 'pipe', env: { PATH: `${dir}:/usr/bin:/bin` } })
  expect(usage.exitCode).toBe(2)
  expect(usage.stderr.toString()).toContain('Usage: order-relay order [options]   (`order-relay order --help` lists them)')
})

test('every subcommand documents its options and environment', () => {
  const relayer = run(['relayer', '--help'])
  expect(relayer.code).toBe(0)
  for (const name of ['RELAYER_PK', 'RELAYER_CHAIN_ID', 'RELAYER_PORT', 'RELAYER_HARDENED', 'RELAYER_GAS_FLOOR_WEI', 'RELAYER_CORS_ORIGINS', '--manifest']) {
    expect(relayer.out).toContain(name)
  }
  expect(run(['indexer', '--help']).out).toContain('INDEXER_RETENTION')
  expect(run(['mcp', '--help']).out).toContain('INDEXER_RPC_URL')
  expect(run(['devnet', '--help']).out).toContain('--port-base')
  expect(run(['deploy', '--help']).out).toContain('DEPLOYER_PK')
  expect(run(['order', '--help']).out).toContain('--relayer URL')
  expect(run(['verify-receipt', '--help']).out).toContain('--rpc')
})

test('relayer without a key: names the variable, exit 2, starts nothing', () => {
  const result = run(['relayer'], { RELAYER_CHAIN_ID: '421614', RELAYER_BROKER: devnetAccounts.spare.address })
  expect(result.code).toBe(2)
  expect(result.err).toContain('RELAYER_PK is required')
})

test('devnet without anvil anywhere: exit 1 saying where it looked and the exact commands that get it', () => {
  const home = mkdtempSync(join(tmpdir(), 'order-relay-home-'))
  const result = Bun.spawnSync([exe, 'devnet', '--port-base', '1'], { cwd: '/', stdout: 'pipe', stderr: 'pipe', env: { PATH: '/usr/bin:/bin', HOME: home } })
  rmSync(home, { recursive: true, force: true })
  expect(result.exitCode).toBe(1)
  expect(result.stderr.toString()).toBe(
    [
      "order-relay devnet: anvil not found: the devnet runs anvil, Foundry's local chain. Looked for",
      `  node_modules/@foundry-rs/anvil-<platform>/bin/anvil in /, ${dir} and each parent folder,`,
      `  ${home}/.foundry/bin/anvil, and every folder on PATH.`,
      'Get it with either of:',
      `  npm install --prefix ${dir} @foundry-rs/anvil   (from the npm registry, beside this program; needs Node.js)`,
      `  curl -L https://foundry.paradigm.xyz | bash && ${home}/.foundry/bin/foundryup   (Foundry's installer, into ${home}/.foundry/bin)`,
      'then run the same command again.',
      '',
    ].join('\n'),
  )
})

// What `npm install --prefix <folder> @foundry-rs/anvil` leaves (the error's first
// suggestion), and where foundryup installs: a copied executable finds either.
const anvilPackage = join(repoRoot, 'node_modules', '@foundry-rs', readdirSync(join(repoRoot, 'node_modules', '@foundry-rs')).find((name) => name.startsWith('anvil-'))!)

test.each([
  ['node_modules beside the executable', (copy: string, _home: string) => {
    mkdirSync(join(copy, 'node_modules', '@foundry-rs'), { recursive: true })
    symlinkSync(anvilPackage, join(copy, 'node_modules', '@foundry-rs', basename(anvilPackage)))
  }],
  ['~/.foundry/bin', (_copy: string, home: string) => {
    mkdirSync(join(home, '.foundry', 'bin'), { recursive: true })
    symlinkSync(join(anvilPackage, 'bin', 'anvil'), join(home, '.foundry', 'bin', 'anvil'))
  }],
])('a copied executable, PATH without anvil, run from elsewhere, finds anvil in %s', async (_where, install) => {
  const copy = mkdtempSync(join(tmpdir(), 'order-relay-copy-'))
  const home = mkdtempSync(join(tmpdir(), 'order-relay-home-'))
  const copied = join(copy, 'order-relay')
  try {
    linkSync(exe, copied)
  } catch {
    copyFileSync(exe, copied)
  }
  install(copy, home)
  const base = await freePortBase()
  const child = Bun.spawn([copied, 'devnet', '--port-base', String(base), '--manifest', join(copy, 'manifest.json')], {
    cwd: '/',
    stdout: 'pipe',
    stderr: 'pipe',
    stdin: 'ignore',
    env: { PATH: '/usr/bin:/bin', HOME: home },
  })
  const output = watchOutput(child)
  try {
    await output.waitFor(/Ctrl-C stops everything/)
    expect(output.text).toContain(`  ${copied} order --manifest ${join(copy, 'manifest.json')}\n`)
  } finally {
    child.kill('SIGTERM')
    expect(await child.exited).toBe(0)
    rmSync(copy, { recursive: true, force: true })
    rmSync(home, { recursive: true, force: true })
  }
  expect(await processesMatching(`--port ${base} `)).toEqual([])
}, 90_000)

/** `order-relay devnet` on free ports, once it says it is ready (killed if it never does). */
async function startDevnetCommand(manifestPath: string) {
  const base = await freePortBase()
  const child = Bun.spawn([exe, 'devnet', '--port-base', String(base), '--manifest', manifestPath], {
    stdout: 'pipe',
    stderr: 'pipe',
    stdin: 'ignore',
    env: { PATH: process.env.PATH ?? '' },
  })
  const output = watchOutput(child)
  try {
    await output.waitFor(/Ctrl-C stops everything/)
  } catch (error) {
    child.kill('SIGKILL')
    throw error
  }
  return { base, child, output }
}

test('devnet on free ports: order settles, /activity shows the events, openapi answers, SIGTERM leaves nothing', async () => {
  const manifestPath = join(dir, 'manifest.json')
  const { base, child, output } = await startDevnetCommand(manifestPath)
  try {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
    expect(manifest.relayerUrl).toBe(`http://127.0.0.1:${base + 1}`)
    expect(manifest.indexerUrl).toBe(`http://127.0.0.1:${base + 2}`)
    expect(output.text).toContain(`order --manifest ${manifestPath}`)

    const order = run(['order', '--manifest', manifestPath])
    expect(order.code).toBe(0)
    const success = JSON.parse(order.out)
    expect(success.ok).toBe(true)
    expect(success.receipt.event).toBe('AllocationGranted')

    const openapi = await (await fetch(`${manifest.relayerUrl}/api/openapi.json`)).json()
    expect(openapi.openapi).toBe('3.1.0')

    // The indexer catches up within a few polls.
    let snapshot: ActivitySnapshot | undefined
    for (let i = 0; i < 40; i++) {
      snapshot = (await (await fetch(`${manifest.indexerUrl}/activity`)).json()) as ActivitySnapshot
      if (snapshot.indexedThrough === snapshot.head && snapshot.events.some((e) => e.name === 'LienRecorded')) break
      await Bun.sleep(100)
    }
    const recorded = snapshot!.events.find((event) => event.name === 'LienRecorded')
    expect(Object.keys(recorded!.fields).sort()).toEqual(['borrower', 'expiresAt', 'lienId'])
    expect(await processesMatching(`--port ${base} `)).toHaveLength(1)
  } finally {
    child.kill('SIGTERM')
  }
  expect(await child.exited).toBe(0)
  expect(await processesMatching(`--port ${base} `)).toEqual([])
  expect(output.text).not.toContain(devnetAccounts.relayer.privateKey.slice(2))
}, 90_000)

test('devnet whose anvil dies: says so, stops the relayer and indexer, exit 1', async () => {
  const { base, child, output } = await startDevnetCommand(join(dir, 'dies.json'))
  try {
    const [anvil] = await processesMatching(`--port ${base} `)
    process.kill(Number(anvil!.trim().split(/\s+/)[0]), 'SIGKILL')
    expect(await child.exited).toBe(1)
  } finally {
    child.kill('SIGKILL')
  }
  expect(output.text).toContain('anvil stopped on its own (killed by SIGKILL); relayer and indexer stopped too. Start the devnet again.')
  const refused = async (port: number) => fetch(`http://127.0.0.1:${port}/`).then(() => false, () => true)
  expect([await refused(base + 1), await refused(base + 2)]).toEqual([true, true])
}, 90_000)

test('the executable runs a relayer with only RELAYER_PK, RELAYER_CHAIN_ID, RELAYER_RPC_URL and RELAYER_BROKER: it says it accepts no pay token and refuses orders without spending; given RELAYER_TOKENS, it settles them', async () => {
  const devnet: Devnet = await startDevnet()
  const base = await freePortBase(1)
  const key = devnetAccounts.secondRelayer.privateKey
  // Run from a folder without node_modules: the relayer needs nothing but the binary.
  const spawn = (extra: Record<string, string>) =>
    Bun.spawn([exe, 'relayer'], {
      cwd: dir,
      stdout: 'pipe',
      stderr: 'pipe',
      stdin: 'ignore',
      env: {
        PATH: process.env.PATH ?? '',
        RELAYER_PK: key,
        RELAYER_CHAIN_ID: String(devnet.chainId),
        RELAYER_RPC_URL: devnet.rpcUrl,
        RELAYER_BROKER: devnet.manifest.contracts.broker,
        RELAYER_PORT: String(base),
        ...extra,
      },
    })
  const client = createRelayClient({ url: `http://127.0.0.1:${base}` })
  const payToken = devnet.manifest.contracts.payToken
  let output: ReturnType<typeof watchOutput> | undefined
  let priced: ReturnType<typeof watchOutput> | undefined
  let remote: ReturnType<typeof watchOutput> | undefined
  // Every relayer it starts is killed at the end, whether or not an expectation failed first.
  const children: Array<ReturnType<typeof spawn>> = []
  try {
    const bare = spawn({})
    children.push(bare)
    output = watchOutput(bare)
    await output.waitFor(/listening on/)
    expect(output.text).toContain(devnetAccounts.secondRelayer.address)
    expect(output.text).toContain('pay tokens: none accepted; every order is refused FEE_BELOW_FLOOR until RELAYER_TOKENS names a token and its price (docs/economics.md)')
    expect(await client.info()).toEqual({ feeFloorBps: 0, supportedChainIds: [devnet.chainId], relayer: devnetAccounts.secondRelayer.address, acceptedTokens: [], acceptsUnpricedTokens: false, minMarginBps: 1000, gasPriceWei: expect.stringMatching(/^[1-9]\d*$/), signerKind: 'private-key' })
    const nonce = await devnet.publicClient.getTransactionCount({ address: devnetAccounts.secondRelayer.address })
    const refused = await client.broker(await signed(devnet, allocationOrder(devnet))).catch((error: unknown) => error as { code: string; status: number; message: string })
    expect(refused).toMatchObject({ code: 'FEE_BELOW_FLOOR', status: 402, message: `pay token ${payToken} is not accepted by this relayer (this relayer has no price for it); it accepts no pay token at the moment; pay in an accepted token or choose another relayer (GET /info)` })
    expect(await devnet.publicClient.getTransactionCount({ address: devnetAccounts.secondRelayer.address })).toBe(nonce)
    bare.kill('SIGTERM')
    expect(await bare.exited).toBe(0)

    const pricedChild = spawn(manifestTokensVariable(devnet.manifest))
    children.push(pricedChild)
    priced = watchOutput(pricedChild)
    await priced.waitFor(/listening on/)
    const success = await client.broker(await signed(devnet, allocationOrder(devnet)))
    expect(success.feeCollected).toBe('50000')
    pricedChild.kill('SIGTERM')
    expect(await pricedChild.exited).toBe(0)

    // The same key at a remote signer (the devnet's anvil answers eth_signTransaction for it):
    // the executable's signer thread checks what the signer returned.
    const remoteChild = spawn({ ...manifestTokensVariable(devnet.manifest), RELAYER_PK: '', RELAYER_SIGNER_URL: devnet.rpcUrl, RELAYER_SIGNER_ADDRESS: devnetAccounts.secondRelayer.address })
    children.push(remoteChild)
    remote = watchOutput(remoteChild)
    await remote.waitFor(/listening on/)
    expect((await client.info()).signerKind).toBe('remote')
    expect((await client.broker(await signed(devnet, allocationOrder(devnet)))).feeCollected).toBe('50000')
    remoteChild.kill('SIGTERM')
    expect(await remoteChild.exited).toBe(0)
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
    await devnet.stop()
  }
  const text = `${output?.text ?? ''}${priced?.text ?? ''}${remote?.text ?? ''}`
  expect(text.toLowerCase()).not.toContain(key.slice(2).toLowerCase())
  expect(text).toContain('POST /broker 402 FEE_BELOW_FLOOR')
  expect(text).toContain('POST /broker 200 OK')
  const output2 = { text }
  // The signer thread's module is embedded in the executable: it signed and checked, nothing fell back.
  expect(output2.text).not.toContain('signer thread stopped')
}, 90_000)
