import { createLogger, readLogFormat } from '../../shared/index.ts'
import { type Command, parseFlags } from '../command.ts'
import { version } from '../version.ts'
import { indexerConfigFrom } from './indexer.ts'
import { openRelayerGasSigner, relayerConfigFrom, relayerEnvironment } from './relayer.ts'
import { indexerEnvironment } from '../../indexer/config.ts'

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run both surfaces: the relayer (RELAYER_PORT) and the indexer (INDEXER_PORT)',
  options: ['--manifest PATH   manifest for both (wins over RELAYER_MANIFEST and INDEXER_MANIFEST)'],
  environment: [...relayerEnvironment, ...indexerEnvironment],
  async run(argv, io) {
    const { values } = parseFlags(argv, { manifest: { type: 'string' } })
    // Read both configurations before starting anything, so a bad value starts nothing.
    const relayerConfig = relayerConfigFrom(io.env, { manifest: values.manifest })
    const indexerConfig = indexerConfigFrom(io.env, { manifest: values.manifest })
    const logger = createLogger(io.out, readLogFormat(io.env))
    // Loaded when run, as every command's modules (see relayer.ts).
    const [{ createRelayer }, { createIndexer }] = await Promise.all([import('../../relayer/index.ts'), import('../../indexer/index.ts')])
    const gasSigner = await openRelayerGasSigner(relayerConfig, io.env, logger)
    const relayer = await createRelayer(relayerConfig, { logger, version, gasSigner }).serve()
    let indexer: Awaited<ReturnType<ReturnType<typeof createIndexer>['serve']>>
    try {
      indexer = await createIndexer(indexerConfig, { logger }).serve()
    } catch (error) {
      await relayer.stop()
      throw error
    }
    if (!io.signal.aborted) await new Promise<void>((resolve) => io.signal.addEventListener('abort', () => resolve(), { once: true }))
    logger.info('stopping: finishing orders already in flight')
    await Promise.all([relayer.stop(), indexer.stop()])
    return 0
  },
}
