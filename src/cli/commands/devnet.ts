import { resolve } from 'node:path'
import { ConfigError, createLogger, errorLine, readLogFormat } from '../../shared/index.ts'
import { type Command, CommandError, parseFlags, UsageError } from '../command.ts'
import { parseAdapterSpec } from '../lib/adapterSpec.ts'
import { invocation, shellQuote } from '../lib/invocation.ts'
import { assertManifestWritable, writeManifest } from '../lib/writeManifest.ts'
import { version } from '../version.ts'
import { isAddressString } from '../../wire/index.ts'
import { devnetOwnedRelayerVariables, devnetRelayerConfig, devnetRelayerDefaults } from '../lib/devnetRelayerConfig.ts'
import { hasDefaultPayment } from '../lib/manifestAdapterPayment.ts'
import { relayerEnvironment } from './relayer.ts'

/**
 * `relayer --help`'s variables as the devnet reads them: without those the devnet sets
 * itself, and with the devnet's own defaults (see devnetRelayerConfig.ts).
 */
function devnetRelayerEnvironment(): string[] {
  const owned: readonly string[] = devnetOwnedRelayerVariables
  const devnetDefaults: Record<string, string> = {
    RELAYER_RECEIPT_POLL_MS: `(devnet default ${devnetRelayerDefaults.RELAYER_RECEIPT_POLL_MS})`,
    RELAYER_DB: `(devnet default ${devnetRelayerDefaults.RELAYER_DB}, a fresh chain each run)`,
    RELAYER_WS_URL: "(devnet default anvil's own ws://)",
    RELAYER_CONFIRMATIONS: `(devnet default ${devnetRelayerDefaults.RELAYER_CONFIRMATIONS})`,
  }
  return [
    ...relayerEnvironment
      .filter((line) => !owned.includes(line.split(' ')[0]!))
      .map((line) => (devnetDefaults[line.split(' ')[0]!] ? `${line} ${devnetDefaults[line.split(' ')[0]!]}` : line)),
    `(${owned.join(', ')}: set by the devnet; ignored here)`,
  ]
}

const portNumber = (name: string, value: string | undefined, fallback: number) => {
  if (value === undefined) return fallback
  if (!/^\d+$/.test(value) || Number(value) > 65533) throw new UsageError(`--${name} must be a port number (1-65533), or 0 for free ports`)
  return Number(value)
}

/** How long an anvil that exited as if interrupted waits for this process's own signal (see `run`). */
const interruptGraceMs = 3_000

export const devnetCommand: Command = {
  name: 'devnet',
  summary: 'local chain with everything deployed and seeded, plus a relayer and an indexer',
  options: [
    '--chain-id ID      421614 (default; with --fork-url, the forked chain\'s) or 46630',
    '--port-base N      anvil on N, relayer on N+1, indexer on N+2 (default: 8545, 8787, 8788); 0: each on a free port (the manifest names them)',
    '--manifest PATH    where to write the manifest (default .devnet/manifest.json)',
    '--fork-url URL     run anvil as a fork of a real chain and deploy onto it',
    '--fork-block N     with --fork-url: fork at block N (the same chain state every run)',
    '--pay-token ADDR   with --fork-url: pay in this Circle FiatToken (the chain\'s USDC) instead of a mock; the consumer is',
    '                   funded through its master minter (impersonated on the fork)',
    '--adapter PATH.json[:ARGS]  deploy your own adapter against the Broker (repeatable): a forge/hardhat artifact and its',
    '                   constructor arguments, comma-separated or a JSON array; an address argument may be a name:',
    '                   broker, payToken, any manifest contract, deployer, consumer, payee… The relayer decodes its',
    '                   errors and events by name; the manifest lists it under adapters',
  ],
  environment: [
    'FOUNDRY_DIR   Foundry\'s folder: anvil is also looked for in its bin/ (default ~/.foundry)',
    '',
    'The devnet\'s relayer reads the variables `order-relay relayer` reads, with the devnet\'s defaults where unset:',
    ...devnetRelayerEnvironment(),
  ],
  async run(argv, io) {
    const { values } = parseFlags(argv, {
      'chain-id': { type: 'string' },
      'port-base': { type: 'string' },
      manifest: { type: 'string' },
      'fork-url': { type: 'string' },
      'fork-block': { type: 'string' },
      'pay-token': { type: 'string' },
      adapter: { type: 'string', multiple: true },
    })
    const adapters = (values.adapter ?? []).map(parseAdapterSpec)
    const forkBlock = values['fork-block']
    if (forkBlock !== undefined && (!/^\d+$/.test(forkBlock) || !values['fork-url'])) throw new UsageError('--fork-block takes a block number, with --fork-url')
    const payToken = values['pay-token']
    if (payToken !== undefined && (!isAddressString(payToken) || !values['fork-url'])) throw new UsageError('--pay-token takes a token address (0x + 40 hex digits), with --fork-url')
    // Default 421614; a fork keeps the forked chain's id unless --chain-id says otherwise.
    const requested = values['chain-id'] === undefined ? undefined : Number(values['chain-id'])
    if (requested !== undefined && (!Number.isInteger(requested) || requested < 1)) throw new UsageError('--chain-id must be a chain id such as 421614 or 46630')
    const base = values['port-base'] === undefined ? undefined : portNumber('port-base', values['port-base'], 0)
    const ports =
      base === undefined ? { anvil: 8545, relayer: 8787, indexer: 8788 } : base === 0 ? { anvil: 0, relayer: 0, indexer: 0 } : { anvil: base, relayer: base + 1, indexer: base + 2 }
    // Absolute, so the next steps printed below work from any directory.
    const manifestPath = resolve(values.manifest ?? '.devnet/manifest.json')
    assertManifestWritable(manifestPath)
    const logger = createLogger(io.out, readLogFormat(io.env))
    // Loaded when run, as every command's modules (see relayer.ts).
    const [{ AdapterArtifactError, AnvilNotFoundError, checkAdapterDeployment, devnetAccounts, startDevnet }, { createIndexer, readIndexerConfig }, { createRelayer }] = await Promise.all([
      import('../../devnet/index.ts'),
      import('../../indexer/index.ts'),
      import('../../relayer/index.ts'),
    ])
    // The RELAYER_* variables are checked before anything starts: a bad one is a usage error (exit 2), not a failure after deploying.
    const relayerFor = (parameters: Parameters<typeof devnetRelayerConfig>[1]) => {
      try {
        return devnetRelayerConfig(io.env, parameters)
      } catch (error) {
        if (error instanceof ConfigError) throw new UsageError(error.message)
        throw error
      }
    }
    const { ignored } = relayerFor({
      privateKey: devnetAccounts.relayer.privateKey,
      chainId: requested ?? 421614,
      rpcUrl: `http://127.0.0.1:${ports.anvil || 8545}`,
      broker: devnetAccounts.spare.address,
      deployedAt: 0n,
      port: ports.relayer,
    })
    // Each adapter's artifact and arguments, checked before anvil starts.
    for (const adapter of adapters) {
      try {
        checkAdapterDeployment(adapter)
      } catch (error) {
        if (error instanceof AdapterArtifactError) throw new UsageError(error.message)
        throw error
      }
    }
    if (ignored.length > 0) io.err(`devnet: ignoring ${ignored.join(', ')} (the devnet sets these for its own relayer)`)

    io.out(`starting anvil${values['fork-url'] ? ' (fork)' : ''} on ${ports.anvil ? `127.0.0.1:${ports.anvil}` : 'a free port'}`)
    let devnet: Awaited<ReturnType<typeof startDevnet>>
    try {
      devnet = await startDevnet({
        chainId: requested ?? (values['fork-url'] ? undefined : 421614),
        ...(ports.anvil ? { port: ports.anvil } : {}),
        forkUrl: values['fork-url'],
        ...(forkBlock !== undefined ? { forkBlockNumber: BigInt(forkBlock) } : {}),
        ...(payToken !== undefined ? { payToken: payToken as `0x${string}` } : {}),
        adapters,
        onAnvilStderr: (line) => io.err(`anvil: ${line}`),
        onProgress: (p) => io.out(`  [${p.step}/${p.total}] ${p.name}${p.address ? ` ${p.address}` : ''}`),
      })
    } catch (error) {
      // Its whole message says where anvil was looked for and how to get it.
      if (error instanceof AnvilNotFoundError) throw new CommandError(error.message)
      // An artifact or its arguments: a usage error, said whole.
      if (error instanceof AdapterArtifactError) throw new UsageError(error.message)
      const message = error instanceof Error ? error.message : String(error)
      // anvil that does not start is most often a port already taken; anything else says what failed.
      const hint = ports.anvil && message.startsWith('Failed to start anvil') ? ` (is port ${ports.anvil} free? try --port-base)` : ''
      throw new CommandError(`${errorLine(error)}${hint}`)
    }
    const { manifest, chainId } = devnet
    const stops: (() => Promise<unknown>)[] = [() => devnet.stop()]
    const stopAll = async () => {
      for (const stop of stops.reverse()) await stop().catch(() => {})
    }
    try {
      const { config: relayerConfig } = relayerFor({
        privateKey: devnetAccounts.relayer.privateKey,
        chainId,
        rpcUrl: devnet.rpcUrl,
        broker: manifest.contracts.broker,
        deployedAt: BigInt(manifest.deployedAt),
        port: ports.relayer,
        adapters: manifest.adapters,
        // The deployment's pay token is priced in its manifest (`tokens`).
        manifest,
      })
      const relayer = createRelayer(relayerConfig, { logger, version })
      const relayerServer = await relayer.serve()
      stops.push(() => relayerServer.stop())
      const { registry, inbox, pool, escrow } = manifest.contracts
      const indexer = createIndexer(
        readIndexerConfig(
          {},
          {
            chainId,
            rpcUrl: devnet.rpcUrl,
            addresses: [registry, inbox, pool, escrow] as [`0x${string}`, `0x${string}`, `0x${string}`, `0x${string}`],
            deployedAt: BigInt(manifest.deployedAt),
            host: '127.0.0.1',
            port: ports.indexer,
            pollMs: 250,
            // The devnet's chain lives as long as this process: nothing worth a store file.
            db: ':memory:',
          },
        ),
        { logger },
      )
      const indexerServer = await indexer.serve()
      stops.push(() => indexerServer.stop())

      writeManifest(manifestPath, { ...manifest, relayerUrl: relayerServer.url, indexerUrl: indexerServer.url })
      io.out('')
      io.out(`devnet ready: chain ${chainId}, RPC ${devnet.rpcUrl}`)
      io.out(`  relayer  ${relayerServer.url}  (POST /broker, GET /info, GET /api/openapi.json)`)
      io.out(`  indexer  ${indexerServer.url}  (GET /activity, GET /health)`)
      for (const adapter of manifest.adapters ?? []) io.out(`  adapter  ${adapter.name} ${adapter.address}  (its errors and events decoded by the relayer)`)
      io.out(`  manifest ${manifestPath}`)
      io.out('')
      io.out('Next: settle an order through the relayer:')
      io.out(`  ${invocation()} order --manifest ${shellQuote(manifestPath)}`)
      for (const adapter of manifest.adapters ?? []) {
        // What the adapter's grant decodes and charges is its own: the command names the flags to fill in.
        const priced = hasDefaultPayment(adapter)
        io.out(`an order to ${adapter.name} (--params ABI-encoded as its grant decodes them${priced ? '' : '; --amount and --payee as it charges'}):`)
        io.out(`  ${invocation()} order --manifest ${shellQuote(manifestPath)} --adapter ${adapter.name} --params 0x…${priced ? '' : ' --amount UNITS --payee ADDR'}`)
      }
      io.out('Ctrl-C stops everything.')
    } catch (error) {
      await stopAll()
      throw error
    }
    const signalled = new Promise<'signal'>((resolve) => {
      if (io.signal.aborted) resolve('signal')
      io.signal.addEventListener('abort', () => resolve('signal'), { once: true })
    })
    let ended = await Promise.race([signalled, devnet.unexpectedExit])
    // Ctrl-C in a terminal signals the whole process group: anvil (which exits 0 on
    // SIGINT and SIGTERM) may see it and be gone before this process has run its own
    // handler, more so on a busy machine. An exit that looks like that waits a moment
    // for the signal: it is the user stopping the devnet, not the chain failing.
    if (ended !== 'signal' && (ended.code === 0 || ended.signal !== null)) {
      let wait: ReturnType<typeof setTimeout> | undefined
      const late = await Promise.race([
        signalled,
        new Promise<undefined>((resolve) => {
          wait = setTimeout(() => resolve(undefined), interruptGraceMs)
        }),
      ])
      clearTimeout(wait)
      if (late) ended = late
    }
    if (ended !== 'signal') {
      // The chain is gone: serving on would only answer UPSTREAM_RPC to everyone.
      await stopAll()
      const how = ended.signal ? `killed by ${ended.signal}` : `exit code ${ended.code}`
      throw new CommandError(`anvil stopped on its own (${how}); relayer and indexer stopped too. Start the devnet again.`)
    }
    io.out('stopping relayer, indexer and anvil')
    await stopAll()
    return 0
  },
}
