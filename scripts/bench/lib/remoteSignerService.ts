import { devnetAccounts, findAnvil, anvilInstance } from '../../../src/devnet/index.ts'
import { freePort } from '../../../src/shared/index.ts'

/**
 * A remote signer for the bench: an anvil of its own (it answers `eth_signTransaction`
 * for its development accounts, the bench relayer's key among them) behind a proxy that
 * holds each signature `delayMs` before answering, as a signer service across a network
 * would. The relayer reaches it as it reaches Web3Signer: RELAYER_SIGNER_URL and
 * RELAYER_SIGNER_ADDRESS, every tx it returns checked before it is journaled.
 */
export async function startRemoteSignerService(options: { chainId: number; delayMs: number }) {
  const port = await freePort()
  const signer = anvilInstance({ binary: findAnvil(), chainId: options.chainId, port, host: '127.0.0.1' })
  await signer.start()
  const upstream = `http://127.0.0.1:${port}`
  const proxy = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const body = await request.text()
      if (body.includes('eth_signTransaction')) await Bun.sleep(options.delayMs)
      const answer = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      return new Response(await answer.text(), { status: answer.status, headers: { 'content-type': 'application/json' } })
    },
  })
  return {
    env: { RELAYER_PK: '', RELAYER_SIGNER_URL: `http://127.0.0.1:${proxy.port}`, RELAYER_SIGNER_ADDRESS: devnetAccounts.relayer.address },
    async stop() {
      proxy.stop(true)
      await signer.stop()
    },
  }
}
