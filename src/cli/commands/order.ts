import { type Address, createPublicClient, type Hex, http, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { chainFor, ManifestError, readManifest } from '../../chain/index.ts'
import { chooseRelayer, createRelayClient, signOrder, SubmitError } from '../../client/index.ts'
import { createEnvReader, redactUrl } from '../../shared/index.ts'
import { isAddressString, isDecimalString, isHexString } from '../../wire/index.ts'
import { type Command, CommandError, httpUrlFlag, parseFlags, UsageError } from '../command.ts'
import { type AdapterKind, buildOrderParams, orderPayment } from '../lib/buildOrderParams.ts'
import { checkPriced, manifestAdapterPayment } from '../lib/manifestAdapterPayment.ts'
import { invocation } from '../lib/invocation.ts'

const decimal = (name: string, value: string | undefined, fallback: bigint) => {
  if (value === undefined) return fallback
  if (!isDecimalString(value)) throw new UsageError(`--${name} must be a whole decimal number`)
  return BigInt(value)
}

export const orderCommand: Command = {
  name: 'order',
  summary: 'build, sign and submit an order through a relayer',
  options: [
    '--manifest PATH     devnet/deploy manifest (default .devnet/manifest.json)',
    '--relayer URL       a relayer to consider; repeatable (default: the manifest\'s relayerUrl)',
    '--adapter KIND      allocation (default), express-lane, attested, or the name of one of the manifest\'s adapters (devnet --adapter)',
    '--params HEX        the order\'s params, ABI-encoded as the adapter decodes them (default: built for allocation, express-lane and attested; 0x for a manifest adapter)',
    '--vault ID          allocation vault (default: the manifest\'s first vault, else 1)',
    '--amount UNITS      amount in token base units (default: the price; the manifest\'s vault price, else the adapter\'s)',
    '--fee-bps N         relayer fee in basis points (default 50)',
    '--payee ADDR        who receives amount - fee (default: the price\'s payee; another one is refused on chain)',
    '--valid-for SECS    authorization window from now (default 600)',
    '--rpc URL           RPC to read the token\'s EIP-712 domain (default: the manifest\'s)',
  ],
  environment: ['CONSUMER_PK   consumer key, 0x + 64 hex (default: the devnet manifest\'s consumer; never printed)'],
  async run(argv, io) {
    const { values } = parseFlags(argv, {
      manifest: { type: 'string' },
      relayer: { type: 'string', multiple: true },
      adapter: { type: 'string' },
      params: { type: 'string' },
      vault: { type: 'string' },
      amount: { type: 'string' },
      'fee-bps': { type: 'string' },
      payee: { type: 'string' },
      'valid-for': { type: 'string' },
      rpc: { type: 'string' },
    })
    const adapterName = values.adapter ?? 'allocation'
    if (values.params !== undefined && !isHexString(values.params)) throw new UsageError('--params must be hex: 0x followed by an even number of hex digits (ABI-encode it, e.g. cast abi-encode "f(uint256)" 0)')
    const feeBps = Number(decimal('fee-bps', values['fee-bps'], 50n))
    if (feeBps > 65535) throw new UsageError('--fee-bps must fit uint16 (0-65535)')
    if (values.payee !== undefined && !isAddressString(values.payee)) throw new UsageError('--payee must be an address')
    for (const url of values.relayer ?? []) httpUrlFlag('relayer', url)
    if (values.rpc !== undefined) httpUrlFlag('rpc', values.rpc)

    let manifest
    try {
      manifest = readManifest(values.manifest ?? '.devnet/manifest.json')
    } catch (error) {
      // A manifest that is missing or wrong is a configuration error (exit 2).
      if (error instanceof ManifestError) throw new UsageError(`${error.message} (start one with \`${invocation()} devnet\`, or pass --manifest)`)
      throw error
    }
    const builtIn = (['allocation', 'express-lane', 'attested'] as const).find((name) => name === adapterName)
    const own = manifest.adapters?.find((adapter) => adapter.name === adapterName)
    if (!builtIn && !own) {
      const names = ['allocation', 'express-lane', 'attested', ...(manifest.adapters ?? []).map((adapter) => adapter.name)]
      throw new UsageError(`--adapter ${JSON.stringify(adapterName.slice(0, 80))} is neither a built-in adapter nor one of the manifest's adapters: use one of ${names.join(', ')}`)
    }
    if (own && (values.amount === undefined || values.payee === undefined)) checkPriced(own)
    const read = createEnvReader(io.env)
    const key = read.privateKey('CONSUMER_PK', false) ?? manifest.accounts?.consumer?.privateKey
    try {
      read.done('order')
    } catch (error) {
      throw new UsageError((error as Error).message)
    }
    if (!key) throw new UsageError('CONSUMER_PK is required (the manifest has no consumer key)')
    const account = privateKeyToAccount(key)
    const relayers = values.relayer ?? (manifest.relayerUrl ? [manifest.relayerUrl] : [])
    if (relayers.length === 0) throw new UsageError('no relayer: pass --relayer URL (repeatable)')
    const rpcUrl = values.rpc ?? manifest.rpcUrl
    const client = createPublicClient({ chain: chainFor(manifest.chainId, rpcUrl), transport: http(rpcUrl, { retryCount: 1 }) }) as PublicClient

    const { chosen, skipped } = await chooseRelayer(relayers, { chainId: manifest.chainId, feeBps, payToken: manifest.contracts.payToken })
    for (const skip of skipped) if (skip.reason !== 'NOT_CHEAPEST') io.err(`skipped ${skip.url}: ${skip.message}`)
    if (!chosen) throw new CommandError(`no relayer can take this order (chain ${manifest.chainId}, feeBps ${feeBps})`)
    io.err(`relayer ${chosen.url} (feeFloorBps ${chosen.info.feeFloorBps}, gas address ${chosen.info.relayer})`)

    let now: bigint
    try {
      now = (await client.getBlock()).timestamp
    } catch {
      throw new CommandError(`cannot reach the RPC ${redactUrl(rpcUrl)}: check it is up or pass --rpc`)
    }
    const vaultId = decimal('vault', values.vault, BigInt(manifest.vaults?.[0]?.vaultId ?? '1'))
    const built = builtIn
      ? await buildOrderParams(builtIn as AdapterKind, manifest, { consumer: account.address, vaultId, nowSeconds: now })
      : { adapter: own!.address as Address, params: '0x' as Hex }
    const adapter = built.adapter
    const params = (values.params as Hex | undefined) ?? built.params
    // The adapter refuses an order that does not pay exactly its price, to its payee, in its token.
    const payment =
      values.amount !== undefined && values.payee !== undefined
        ? { token: manifest.contracts.payToken, payee: values.payee as Address, price: 0n }
        : builtIn
          ? await orderPayment(builtIn as AdapterKind, manifest, client, { vaultId, params })
          : await manifestAdapterPayment(own!, client)
    const order = {
      consumer: account.address,
      adapter,
      params,
      payToken: payment.token,
      payee: values.payee ?? payment.payee,
      amount: decimal('amount', values.amount, payment.price).toString(),
      nonce: BigInt(Date.now() * 1000 + Math.floor(Math.random() * 1000)).toString(),
      feeBps,
    }
    const request = await signOrder({
      account,
      order,
      broker: manifest.contracts.broker,
      chainId: manifest.chainId,
      client,
      validBefore: now + decimal('valid-for', values['valid-for'], 600n),
    })
    try {
      const success = await createRelayClient({ url: chosen.url }).broker(request)
      io.out(JSON.stringify(success, null, 2))
      return 0
    } catch (error) {
      if (!(error instanceof SubmitError)) throw error
      io.err(`${error.code} (HTTP ${error.status}): ${error.message}`)
      if (error.fix) io.err(`fix: ${error.fix}`)
      return 1
    }
  },
}
