// The relayer as `order-relay relayer` runs it, from source, with its gas key signing at a
// signer service: a side of the bench's signer rows (scripts/bench/signer.ts). Reads the
// relayer's variables; with BENCH_SIGNER_DELAY_MS=<ms> the key (RELAYER_PK) is held by a
// signer double (scripts/lib/signerDouble.ts) that answers each signature after that delay
// and never hands its key over, so the relayer asks it as it asks a remote signer or KMS:
// a batch's signatures together, RELAYER_SIGNER_CONCURRENCY at once. Without it, the
// local key in the signer thread, as the executable. Stops on SIGTERM or SIGINT.
import { createRelayer, readRelayerConfig } from '../../../src/relayer/index.ts'
import { createLogger } from '../../../src/shared/index.ts'
import { signerDouble } from '../../lib/index.ts'

const logger = createLogger()
const config = readRelayerConfig(process.env)
const delay = process.env.BENCH_SIGNER_DELAY_MS
const gasSigner = delay === undefined ? undefined : signerDouble(config.privateKey!, { delayMs: Number(delay), url: 'https://signer.invalid/' }).signer
const server = await createRelayer(config, { logger, version: 'bench', ...(gasSigner ? { gasSigner } : {}) }).serve()
let stopping = false
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, async () => {
    if (stopping) return
    stopping = true
    await server.stop()
    process.exit(0)
  })
}
