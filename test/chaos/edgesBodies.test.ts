// Request edges against a relayer running as its own process (SPEC.md 4.3,
// docs/relayer-edges.md): bodies are limited while they arrive (chunked included) and within a
// deadline, the SIGTERM drain covers a request from its first byte, and the access log
// cannot be forged through the path.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Devnet, devnetAccounts, startDevnet } from '../../src/devnet/index.ts'
import { allocationOrder, signed } from '../helpers/orders.ts'
import { startRelayerProcess } from '../load/support/relayerProcess.ts'
import { chunk, rawRequest, rssMiB } from '../edge/support/rawHttp.ts'
import { waitFor } from '../helpers/waitFor.ts'

let devnet: Devnet
beforeAll(async () => {
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
})

const relayerEnv = () => ({ RELAYER_RPC_URL: devnet.rpcUrl, RELAYER_RECEIPT_POLL_MS: '20', RELAYER_BODY_TIMEOUT_MS: '1500' })
const postHead = (url: string, extra = 'Transfer-Encoding: chunked\r\n') =>
  `POST /broker HTTP/1.1\r\nHost: ${new URL(url).host}\r\nContent-Type: application/json\r\n${extra}\r\n`

describe('bodies', () => {
  test('ten 100 MiB chunked bodies at once: each refused before it ends, relayer RSS stays bounded', async () => {
    const relayer = await startRelayerProcess(devnet, relayerEnv())
    try {
      const before = await rssMiB(relayer.child.pid)
      let peak = before
      const sampling = setInterval(() => {
        rssMiB(relayer.child.pid).then((mib) => (peak = Math.max(peak, mib)), () => {})
      }, 25)
      const mib = new Uint8Array(1024 * 1024).fill(0x20)
      const results = await Promise.all(
        Array.from({ length: 10 }, async () => {
          const request = rawRequest(relayer.url, postHead(relayer.url))
          let sent = 0
          // Keep sending until the server answers or hangs up, or 100 MiB went out; the
          // last chunk (`0\r\n\r\n`) is never sent, so any answer came before the body ended.
          while (sent < 100 && !request.answered && !request.closed) {
            if (!(await request.send(chunk(mib)))) break
            sent++
          }
          const answer = await request.answer()
          request.destroy()
          return { sent, status: answer.status, body: answer.body }
        }),
      )
      clearInterval(sampling)
      for (const result of results) {
        expect(result.status).toBe(400)
        expect(JSON.parse(result.body)).toEqual({ ok: false, code: 'MALFORMED_ORDER', message: 'malformed request: body is larger than 65536 bytes' })
      }
      console.log(`relayer RSS ${before.toFixed(0)} MiB before, peak ${peak.toFixed(0)} MiB; MiB sent per body: ${results.map((r) => r.sent).join(',')}`)
      // 10 × 100 MiB buffered whole was 1.3 GiB; a generous bound well under one body's size.
      expect(peak - before).toBeLessThan(96)
      // Still serving.
      expect((await fetch(`${relayer.url}/info`)).status).toBe(200)
    } finally {
      expect(await relayer.stop()).toBe(0)
    }
  }, 120_000)

  test('a body still arriving after RELAYER_BODY_TIMEOUT_MS is refused, and holds no in-flight slot meanwhile', async () => {
    const relayer = await startRelayerProcess(devnet, { ...relayerEnv(), RELAYER_HARDENED: '1', RELAYER_MAX_INFLIGHT: '1' })
    try {
      const slow = rawRequest(relayer.url, postHead(relayer.url))
      await slow.send(chunk('{"order":'))
      // The same with a declared length.
      const slowDeclared = rawRequest(relayer.url, postHead(relayer.url, 'Content-Length: 500\r\n'))
      await slowDeclared.send('{"order":')
      // The slow body holds no slot: a whole order still gets through the cap of one.
      const request = await signed(devnet, allocationOrder(devnet))
      const fast = await fetch(`${relayer.url}/broker`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) })
      expect(fast.status).toBe(200)
      const settled = (await fast.json()) as { txHash: `0x${string}` }
      expect((await devnet.publicClient.getTransactionReceipt({ hash: settled.txHash })).status).toBe('success')
      for (const request of [slow, slowDeclared]) {
        const answer = await request.answer(10_000)
        request.destroy()
        expect(answer.status).toBe(400)
        expect(JSON.parse(answer.body)).toEqual({ ok: false, code: 'MALFORMED_ORDER', message: 'malformed request: the body did not arrive within 1500 ms; send it at once' })
      }
    } finally {
      expect(await relayer.stop()).toBe(0)
    }
  }, 60_000)
})

describe('SIGTERM while a body arrives', () => {
  test('the request is read, settled and answered 200 before the process exits; nothing broadcast goes unanswered', async () => {
    const relayer = await startRelayerProcess(devnet, relayerEnv())
    const address = devnetAccounts.relayer.address
    const nonceBefore = await devnet.publicClient.getTransactionCount({ address })
    const request = await signed(devnet, allocationOrder(devnet))
    const text = JSON.stringify(request)
    const half = Math.floor(text.length / 2)
    const post = rawRequest(relayer.url, postHead(relayer.url, `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n`))
    await post.send(text.slice(0, half))
    // A request on another connection answered after these bytes went out: the relayer's
    // one event loop has read this request's headers, so it is being handled (waiting
    // for its body) when SIGTERM comes.
    expect((await fetch(`${relayer.url}/info`)).status).toBe(200)
    relayer.child.kill('SIGTERM')
    await waitFor('the relayer to say it is stopping', () => relayer.output.includes('stopping: finishing orders already in flight'))
    await post.send(text.slice(half))
    const answer = await post.answer(30_000)
    const code = await relayer.child.exited
    expect(code).toBe(0)
    // The process has exited: stop() only removes its throw-away journal.
    expect(await relayer.stop()).toBe(0)
    expect(answer.status).toBe(200)
    const body = JSON.parse(answer.body) as { ok: boolean; txHash: `0x${string}`; orderHash: string }
    expect(body.ok).toBe(true)
    expect(body.orderHash).toBe(request.orderHash as string)
    const receipt = await devnet.publicClient.getTransactionReceipt({ hash: body.txHash })
    expect(receipt.status).toBe('success')
    // Exactly one tx from the key, the one answered: nothing else was broadcast, nothing reverted.
    expect(await devnet.publicClient.getTransactionCount({ address })).toBe(nonceBefore + 1)
    expect(await devnet.publicClient.getTransactionCount({ address, blockTag: 'pending' })).toBe(nonceBefore + 1)
  }, 60_000)
})

describe('access log', () => {
  test('control characters in the path are escaped: no forged line', async () => {
    const relayer = await startRelayerProcess(devnet, relayerEnv())
    try {
      const paths = ['/%0AFORGED%20/info%20200%20-', '/x%0D%0APOST%20/broker%20200%20OK', '/%1B%5B31mred', '/%E2%80%A8sep', '/tab%09here']
      for (const path of paths) {
        const request = rawRequest(relayer.url, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
        expect((await request.answer()).status).toBe(404)
      }
      await waitFor('five access lines', () => relayer.output.split('\n').filter((line) => line.endsWith(' 404 NOT_FOUND')).length === 5)
      const lines = relayer.output.split('\n')
      expect(lines.filter((line) => line.endsWith(' 404 NOT_FOUND'))).toEqual([
        'GET /%0AFORGED%20/info%20200%20- 404 NOT_FOUND',
        'GET /x%0D%0APOST%20/broker%20200%20OK 404 NOT_FOUND',
        'GET /%1B[31mred 404 NOT_FOUND',
        'GET /%E2%80%A8sep 404 NOT_FOUND',
        'GET /tab%09here 404 NOT_FOUND',
      ])
      expect(lines.filter((line) => line.startsWith('FORGED') || line.startsWith('POST /broker'))).toEqual([])
      expect(relayer.output).not.toContain('\u001b')
    } finally {
      expect(await relayer.stop()).toBe(0)
    }
  }, 60_000)
})
