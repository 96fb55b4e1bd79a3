import { indexerEnvironment } from '../../indexer/config.ts'
import { type Command, parseFlags } from '../command.ts'
import { relayerEnvironment } from './relayer.ts'

export const checkCommand: Command = {
  name: 'check',
  summary: 'preflight (like nginx -t): check the relayer\'s and indexer\'s configuration against the chain',
  options: [
    '--manifest PATH   read chain, RPC and addresses from a manifest (wins over RELAYER_MANIFEST and INDEXER_MANIFEST)',
    '--relayer         check the relayer (default: when a RELAYER_* variable is set, or nothing else is)',
    '--indexer         check the indexer (default: when an INDEXER_* variable is set)',
    '--json            print one JSON array of {name, ok, detail, fix} and nothing else',
  ],
  // The variables of `relayer` and `indexer`, read as they read them.
  environment: [...relayerEnvironment, ...indexerEnvironment],
  async run(argv, io) {
    const { values } = parseFlags(argv, { manifest: { type: 'string' }, relayer: { type: 'boolean' }, indexer: { type: 'boolean' }, json: { type: 'boolean' } })
    // Loaded when run, as every command's modules (see relayer.ts).
    const { formatReport, runPreflight, surfacesFrom } = await import('../../preflight/index.ts')
    const surfaces = surfacesFrom(io.env, { relayer: values.relayer, indexer: values.indexer })
    const results = await runPreflight({ env: io.env, surfaces, manifestPath: values.manifest })
    if (values.json) io.out(JSON.stringify(results, null, 2))
    else for (const line of formatReport(results)) io.out(line)
    return results.every((result) => result.ok) ? 0 : 1
  },
}
