// A full run of the relayer from the CLI with each source of the gas key (RELAYER_PK, a
// keystore, a remote signer behind a bearer token, AWS KMS through a local double):
// orders settle, refusals are answered, and no secret (the key, the keystore's password,
// the signer's token, the AWS secret key) is in any log line, `--help`, `check` or any
// answer of /info, /status, /ready, /health, /metrics, /api/openapi.json, POST /broker
// and GET /broker/{orderHash}. /info and /status say which kind of key is in use.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { bytesToHex } from '@noble/hashes/utils'
import { keccak256 } from 'viem'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { freePort } from '../../src/shared/index.ts'
import { encryptKeystore } from '../../src/signers/keystore/index.ts'
import { type KmsDouble, startKmsDouble } from '../helpers/kmsDouble.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { watchOutput } from '../helpers/processes.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { type SignerProxy, startSignerProxy } from './support/signerProxy.ts'

const repo = resolve(import.meta.dir, '../..')
const dir = mkdtempSync(join(tmpdir(), 'no-secrets-'))
const password = 'keystore-password-7c1f2e9a'
const token = 'signer-bearer-token-0d4b6e83'
let devnet: Devnet
let manifestPath: string
let kms: KmsDouble
let proxy: SignerProxy

beforeAll(async () => {
  devnet = await startDevnet()
  manifestPath = join(dir, 'manifest.json')
  writeFileSync(manifestPath, JSON.stringify(devnet.manifest))
  kms = startKmsDouble()
  // anvil answers eth_signTransaction for its development accounts: the remote signer, behind a token.
  proxy = startSignerProxy(devnet.rpcUrl, { token })
}, 60_000)

afterAll(async () => {
  await proxy?.stop()
  await kms?.stop()
  await devnet?.stop()
  rmSync(dir, { recursive: true, force: true })
})

type Source = { kind: string; env: () => Promise<Record<string, string>>; secrets: () => string[] }

const sources: Source[] = [
  {
    kind: 'private-key',
    env: async () => ({ RELAYER_PK: devnetAccounts.spare.privateKey }),
    secrets: () => [devnetAccounts.spare.privateKey.slice(2)],
  },
  {
    kind: 'keystore',
    env: async () => {
      const keystore = join(dir, 'keystore.json')
      writeFileSync(keystore, JSON.stringify(await encryptKeystore(devnetAccounts.lender.privateKey, password, { kdf: 'pbkdf2' })), { mode: 0o600 })
      const passwordFile = join(dir, 'password')
      writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 })
      return { RELAYER_KEYSTORE: keystore, RELAYER_KEYSTORE_PASSWORD_FILE: passwordFile }
    },
    secrets: () => [devnetAccounts.lender.privateKey.slice(2), password],
  },
  {
    kind: 'remote',
    env: async () => {
      const tokenFile = join(dir, 'token')
      writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 })
      return { RELAYER_SIGNER_URL: proxy.url, RELAYER_SIGNER_ADDRESS: devnetAccounts.secondRelayer.address, RELAYER_SIGNER_TOKEN_FILE: tokenFile }
    },
    secrets: () => [devnetAccounts.secondRelayer.privateKey.slice(2), token],
  },
  {
    kind: 'aws-kms',
    env: async () => {
      const key = kms.createKey({ spec: 'ECC_SECG_P256K1' })
      const address = publicKeyAddress(key.publicKey)
      await devnet.testClient.setBalance({ address, value: 10n ** 21n })
      return {
        RELAYER_KMS_KEY_ID: key.keyId,
        AWS_ENDPOINT_URL_KMS: kms.url,
        AWS_REGION: kms.region,
        AWS_ACCESS_KEY_ID: kms.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: kms.credentials.secretAccessKey,
        AWS_EC2_METADATA_DISABLED: 'true',
      }
    },
    secrets: () => [kms.credentials.secretAccessKey],
  },
]

/** The address of an uncompressed secp256k1 public key (0x04 ‖ x ‖ y). */
function publicKeyAddress(point: Uint8Array): `0x${string}` {
  return `0x${keccak256(`0x${bytesToHex(point.slice(1))}`).slice(-40)}`
}

async function cli(argv: string[], env: Record<string, string>) {
  const child = Bun.spawn([process.execPath, 'src/cli/main.ts', ...argv], { cwd: repo, env: { PATH: process.env.PATH ?? '', HOME: dir, ...env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { out: out + err, code }
}

describe('no secret in a full run', () => {
  for (const source of sources) {
    test(`${source.kind}: orders settle, and no secret is in any log line or answer`, async () => {
      const port = await freePort()
      const metricsPort = await freePort()
      const env = {
        ...(await source.env()),
        RELAYER_MANIFEST: manifestPath,
        RELAYER_PORT: String(port),
        RELAYER_METRICS_PORT: String(metricsPort),
        RELAYER_DB: join(dir, `${source.kind}.sqlite`),
      }
      const texts: string[] = []
      const check = await cli(['check', '--relayer'], env)
      texts.push(check.out)
      expect(check.out).toMatch(/✓ gas key: /)
      texts.push((await cli(['relayer', '--help'], env)).out)

      const child = Bun.spawn([process.execPath, 'src/cli/main.ts', 'relayer'], { cwd: repo, env: { PATH: process.env.PATH ?? '', HOME: dir, ...env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
      const output = watchOutput(child)
      try {
        await output.waitFor(/listening on http/, 60_000)
        const url = `http://127.0.0.1:${port}`
        const get = async (path: string, base = url) => {
          const response = await fetch(`${base}${path}`)
          const text = await response.text()
          texts.push(text)
          return { status: response.status, text }
        }
        const post = async (body: unknown) => {
          const response = await fetch(`${url}/broker`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
          const text = await response.text()
          texts.push(text)
          return { status: response.status, body: JSON.parse(text) as Record<string, unknown> }
        }
        const info = JSON.parse((await get('/info')).text)
        expect(info.signerKind).toBe(source.kind)
        const request = await signed(devnet, allocationOrder(devnet))
        const settled = await post(request)
        expect([settled.status, settled.body.ok]).toEqual([200, true])
        const replay = await post(request)
        expect(replay.status).toBe(422)
        expect((await post({ not: 'an order' })).status).toBe(400)
        const sold = await post(await signed(devnet, allocationOrder(devnet, { params: `0x${'0'.repeat(63)}7` })))
        expect(sold.body.code).toBe('WOULD_REVERT')
        await get(`/broker/${settled.body.orderHash}`)
        const status = JSON.parse((await get('/status')).text)
        expect([status.signer.kind, status.signer.up]).toEqual([source.kind, true])
        for (const path of ['/ready', '/health', '/api/openapi.json', '/']) await get(path)
        await get('/metrics', `http://127.0.0.1:${metricsPort}`)
      } finally {
        child.kill('SIGTERM')
        await child.exited
      }
      await waitFor('the relayer\'s last lines', () => output.text.includes('stopping'), 10_000)
      texts.push(output.text)
      const everything = texts.join('\n').toLowerCase()
      for (const secret of source.secrets()) expect({ secret, found: everything.includes(secret.toLowerCase()) }).toEqual({ secret, found: false })
    }, 120_000)
  }
})
