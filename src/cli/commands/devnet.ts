import { resolve } from 'node:path'
import { createLogger } from '../../shared/index.ts'
import { type Command, CommandError, parseFlags, UsageError } from '../command.ts'
import { invocation, shellQuote } from '../lib/invocation.ts'
import { assertManifestWritable, writeManifest } from '../lib/writeManifest.ts'
import { version } from '../version.ts'

const portNumber = (name: string, value: string | undefined, fallback: number) => {
  if (value === undefined) return fallback
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 65533) throw new UsageError(`--${name} must be a port number (1-65533)`)
  return Number(value)
}

/** How long an anvil that exited as if interrupted waits for this process's own signal (see `run`). */
const interruptGraceMs = 3_000

export const devnetCommand: Command = {
  name: 'devnet',
  summary: 'local chain with everything deployed and seeded, plus a relayer and an indexer',
  options: [
    '--chain-id ID      421614 (default; with --fork-url, the forked chain\'s) or 46630',
    '--port-base N      anvil on N, relayer on N+1, indexer on N+2 (default: 8545, 8787, 8788)',
    '--manifest PATH    where to write the manifest (default .devnet/manifest.json)',
    '--fork-url URL     run anvil as a fork of a real chain and deploy onto it',
  ],
  environment: ['FOUNDRY_DIR   Foundry\'s folder: anvil is also looked for in its bin/ (default ~/.foundry)'],
  async run(argv, io) {
    const { values } = parseFlags(argv, {
      'chain-id': { type: 'string' },
      'port-base': { type: 'string' },
      manifest: { type: 'string' },
      'fork-url': { type: 'string' },
    })
    // Default 421614; a fork keeps the forked chain's id unless --chain-id says otherwise.
    const requested = values['chain-id'] === undefined ? undefined : Number(values['chain-id'])
    if (requested !== undefined && (!Number.isInteger(requested) || requested < 1)) throw new UsageError('--chain-id must be a chain id such as 421614 or 46630')
    const base = values['port-base'] === undefined ? undefined : portNumber('port-base', values['port-base'], 0)
    const ports = base === undefined ? { anvil: 8545, relayer: 8787, indexer: 8788 } : { anvil: base, relayer: base + 1, indexer: base + 2 }
    // Absolute, so the next steps printed below work from any directory.
    const manifestPath = resolve(values.manifest ?? '.devnet/manifest.json')
    assertManifestWritable(manifestPath)
    const logger = createLogger(io.out)
    // Loaded when run, as every command's modules (see relayer.ts).
    const [{ AnvilNotFoundError, devnetAccounts, startDevnet }, { createIndexer, readIndexerConfig }, { createRelayer, readRelayerConfig }] = await Promise.all([
      import('../../devnet/index.ts'),
      import('../../indexer/index.ts'),
      import('../../relayer/index.ts'),
    ])

    io.out(`starting anvil${values['fork-url'] ? ' (fork)' : ''} on 127.0.0.1:${ports.anvil}`)
    let devnet: Awaited<ReturnType<typeof startDevnet>>
    try {
      devnet = await startDevnet({
        chainId: requested ?? (values['fork-url'] ? undefined : 421614),
        port: ports.anvil,
        forkUrl: values['fork-url'],
        onAnvilStderr: (line) => io.err(`anvil: ${line}`),
        onProgress: (p) => io.out(`  [${p.step}/${p.total}] ${p.name}${p.address ? ` ${p.address}` : ''}`),
      })
    } catch (error) {
      // Its whole message says where anvil was looked for and how to get it.
      if (error instanceof AnvilNotFoundError) throw new CommandError(error.message)
      const message = error instanceof Error ? error.message : String(error)
      throw new CommandError(`${message.split('\n')[0]} (is port ${ports.anvil} free? try --port-base)`)
    }
    const { manifest, chainId } = devnet
    const stops: (() => Promise<unknown>)[] = [() => devnet.stop()]
    const stopAll = async () => {
      for (const stop of stops.reverse()) await stop().catch(() => {})
    }
    try {
      const relayer = createRelayer(
        readRelayerConfig(
          {},
          {
            // The deployment's pay token is priced in its manifest (`tokens`).
            manifest,
            privateKey: devnetAccounts.relayer.privateKey,
            chainId,
            rpcUrl: devnet.rpcUrl,
            broker: manifest.contracts.broker as `0x${string}`,
            deployedAt: BigInt(manifest.deployedAt),
            host: '127.0.0.1',
            port: ports.relayer,
            receiptPollMs: 50,
            // anvil serves WebSocket on its HTTP port: blocks are pushed to the relayer.
            wsUrl: devnet.rpcUrl.replace(/^http/, 'ws'),
            // A fresh chain each run: a journal kept across runs would hold nonces it never saw.
            journalPath: ':memory:',
          },
        ),
        { logger, version },
      )
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
      io.out(`  manifest ${manifestPath}`)
      io.out('')
      io.out('Next: settle an order through the relayer:')
      io.out(`  ${invocation()} order --manifest ${shellQuote(manifestPath)}`)
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
