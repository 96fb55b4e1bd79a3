// A POST /broker body declared larger than the HTTP server's own limit (Bun's
// maxRequestBodySize, 8 MiB by default) is answered the relayer's way: 400
// MALFORMED_ORDER as JSON, with an access line, and the connection closed,
// never Bun's bare plain-text 413 that no log line records. Nothing is read of it.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type Devnet, startDevnet } from '../../src/devnet/index.ts'
import { startTestRelayer, type TestRelayer } from '../helpers/relayer.ts'
import { waitFor } from '../helpers/waitFor.ts'
import { rawRequest } from './support/rawHttp.ts'

let devnet: Devnet
let relayer: TestRelayer

beforeAll(async () => {
  devnet = await startDevnet()
  relayer = await startTestRelayer(devnet, { env: { RELAYER_DB: ':memory:' } })
}, 60_000)
afterAll(async () => {
  await relayer?.stop()
  await devnet?.stop()
})

for (const mib of [9, 20, 4096]) {
  test(`Content-Length of ${mib} MiB, a few bytes sent: 400 MALFORMED_ORDER as JSON, logged, connection closed`, async () => {
    const head = `POST /broker HTTP/1.1\r\nHost: relayer\r\nContent-Type: application/json\r\nContent-Length: ${mib * 1024 * 1024}\r\n\r\n`
    const connection = rawRequest(relayer.url, head)
    await connection.send('{"order":')
    await waitFor('the relayer to answer and close', () => connection.closed, 10_000)
    const answer = await connection.answer(1_000)
    expect(answer.status).toBe(400)
    expect(answer.text.toLowerCase()).toContain('content-type: application/json')
    expect(answer.text.toLowerCase()).toContain('connection: close')
    expect(JSON.parse(answer.body)).toEqual({ ok: false, code: 'MALFORMED_ORDER', message: 'malformed request: body is larger than 65536 bytes' })
    await waitFor('the access line', () => relayer.logger.lines.at(-1) === 'POST /broker 400 MALFORMED_ORDER', 5_000)
  })
}

test('the relayer serves on after refusing them', async () => {
  expect((await fetch(`${relayer.url}/info`)).status).toBe(200)
})
