import { readRelayerConfig, type RelayerConfig, relayerDefaults } from '../../relayer/config.ts'
import type { GasSigner } from '../../signers/index.ts'
import { ConfigError, createLogger, type Logger, readLogFormat } from '../../shared/index.ts'
import { type Command, parseFlags, UsageError } from '../command.ts'
import { version } from '../version.ts'

export const relayerEnvironment = [
  'RELAYER_KEYSTORE         gas key: an encrypted keystore file (Web3 Secret Storage v3; `order-relay key new`)',
  'RELAYER_KEYSTORE_PASSWORD_FILE  file holding its password (else the systemd credential of that name)',
  'RELAYER_SIGNER_URL       gas key: a remote signer\'s JSON-RPC URL (Web3Signer, Clef), with RELAYER_SIGNER_ADDRESS',
  'RELAYER_SIGNER_ADDRESS   the account the remote signer signs with',
  'RELAYER_SIGNER_TOKEN_FILE  file holding the remote signer\'s bearer token (else the systemd credential of that name)',
  'RELAYER_SIGNER_TLS_CERT, RELAYER_SIGNER_TLS_KEY, RELAYER_SIGNER_TLS_CA  PEM files for a signer behind mTLS',
  'RELAYER_KMS_KEY_ID       gas key: an AWS KMS ECC_SECG_P256K1 key (id, ARN or alias; region and credentials from the AWS SDK\'s chain)',
  'RELAYER_PK               gas key, 0x + 64 hex, for development and the devnet (never printed); exactly one of the four gas key sources',
  'RELAYER_CHAIN_ID         chain served: 421614, 46630 or a devnet id (default: the manifest\'s)',
  'RELAYER_RPC_URL          RPC endpoint (default: the manifest\'s, else the chain\'s public RPC)',
  'RELAYER_BROKER           Broker contract address (or RELAYER_MANIFEST)',
  'RELAYER_MANIFEST         devnet/deploy manifest to read addresses from',
  `RELAYER_PORT             listening port (default ${relayerDefaults.port})`,
  `RELAYER_HOST             listening address (default ${relayerDefaults.host}; 0.0.0.0 to serve others)`,
  `RELAYER_FEE_FLOOR_BPS    lowest feeBps accepted (default ${relayerDefaults.feeFloorBps})`,
  `RELAYER_RECEIPT_TIMEOUT_MS  receipt wait before UPSTREAM_RPC (default ${relayerDefaults.receiptTimeoutMs})`,
  `RELAYER_RECEIPT_POLL_MS  longest pause between receipt polls; the first is an eighth of it (default ${relayerDefaults.receiptPollMs})`,
  'RELAYER_WS_URL           ws(s):// URL of the same node: new blocks are pushed (eth_subscribe newHeads), not polled for (default: the manifest\'s wsUrl with its RPC, else off; off: none)',
  'RELAYER_DB               journal of every tx the key signs (default .order-relay/relayer-<chainId>-<address>.sqlite; :memory: keeps nothing)',
  'RELAYER_CONFIRMATIONS    blocks deep a mined tx is final; a reorg before then sends its order again (default 20 on Arbitrum and Robinhood Chain, 1 on 31337/1337, else 12)',
  `RELAYER_REVERT_COOLDOWN_MS  refuse a consumer this long after its order reverted on chain (default ${relayerDefaults.revertCooldownMs}; 0 off)`,
  "RELAYER_DEPLOYED_AT      first block searched for Brokered logs (default: the manifest's deployedAt, else 0)",
  `RELAYER_BODY_TIMEOUT_MS  how long a POST /broker body may take to arrive (default ${relayerDefaults.bodyTimeoutMs})`,
  'RELAYER_HARDENED         1 enables the hardened edge (default off)',
  `RELAYER_RATE_PER_SEC     edge: token refill per second per client IP (default ${relayerDefaults.ratePerSec})`,
  `RELAYER_RATE_BURST       edge: bucket size per client IP (default ${relayerDefaults.rateBurst})`,
  `RELAYER_MAX_INFLIGHT     edge: concurrent POST /broker cap (default ${relayerDefaults.maxInflight})`,
  `RELAYER_GAS_FLOOR_WEI    edge: pause POST /broker below this balance (default ${relayerDefaults.gasFloorWei})`,
  'RELAYER_CORS_ORIGINS     edge: comma list of origins allowed to POST /broker',
  'RELAYER_TRUST_PROXY      edge: 1 to take the client IP from X-Forwarded-For, rightmost untrusted hop (default off)',
  'RELAYER_TRUSTED_PROXIES  edge: proxies in front, a hop count (default 1) or a comma list of CIDRs',
  'RELAYER_REDIS_URL        redis:// or rediss:// Redis/Valkey shared by relayer replicas: claims, outcomes, rate limits (default off; never printed with credentials)',
  `RELAYER_REDIS_RESTORE_MS  after Redis lost its state, no replica takes a new order for this long while all re-publish (default ${relayerDefaults.redisRestoreMs})`,
  `RELAYER_SIGNER_CONCURRENCY  most signatures asked of a remote signer or KMS at once (default ${relayerDefaults.signerConcurrency})`,
  `RELAYER_SIGNER_TIMEOUT_MS  a signature a remote signer or KMS has not given in this long fails; no new order until it signs again (default ${relayerDefaults.signerTimeoutMs})`,
  'RELAYER_METRICS_PORT     Prometheus GET /metrics on its own port (default off)',
  'RELAYER_METRICS_HOST     address of the metrics listener (default 127.0.0.1)',
  'LOG_FORMAT               text (default) or json: one JSON object per log line',
]

/** Reads the relayer config, turning configuration problems into usage errors. */
export function relayerConfigFrom(env: Record<string, string | undefined>, values: { manifest?: string; port?: string }) {
  if (values.port !== undefined && !/^\d+$/.test(values.port)) throw new UsageError('--port must be a port number')
  try {
    return readRelayerConfig(env, {
      manifestPath: values.manifest,
      ...(values.port !== undefined ? { port: Number(values.port) } : {}),
    })
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message)
    throw error
  }
}

/**
 * The gas key a keystore, a remote signer or KMS holds, opened before the relayer is
 * built; undefined for RELAYER_PK, which the configuration carries.
 */
export async function openRelayerGasSigner(config: RelayerConfig, env: Record<string, string | undefined>, logger: Logger): Promise<GasSigner | undefined> {
  if (config.keySource === 'private-key') return undefined
  const { openGasSigner } = await import('../../signers/openGasSigner.ts')
  return openGasSigner(env, { chainId: config.chainId, logger, timeoutMs: config.signerTimeoutMs })
}

export const relayerCommand: Command = {
  name: 'relayer',
  summary: 'run a relayer (POST /broker, GET /info) with only a gas key',
  options: ['--manifest PATH   read chain, RPC and Broker from a manifest (wins over RELAYER_MANIFEST)', '--port N          listening port (wins over RELAYER_PORT)'],
  environment: relayerEnvironment,
  async run(argv, io) {
    const { values } = parseFlags(argv, { manifest: { type: 'string' }, port: { type: 'string' } })
    const logger = createLogger(io.out, readLogFormat(io.env))
    const config = relayerConfigFrom(io.env, values)
    // Loaded when run: every command's modules evaluated at start cost each start ~65 ms.
    const { createRelayer } = await import('../../relayer/index.ts')
    const gasSigner = await openRelayerGasSigner(config, io.env, logger)
    const relayer = createRelayer(config, { logger, version, gasSigner })
    const server = await relayer.serve()
    await new Promise<void>((resolve) => io.signal.addEventListener('abort', () => resolve(), { once: true }))
    logger.info('stopping: finishing orders already in flight')
    await server.stop()
    return 0
  },
}
