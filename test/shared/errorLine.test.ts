// Every failure a log line or a message names goes through one helper: viem's short
// message with the node's words, an Error's first line, a Worker's ErrorEvent, never a
// URL's key or a multi-line dump.
import { expect, test } from 'bun:test'
import { HttpRequestError, RpcRequestError } from 'viem'
import { errorLine } from '../../src/shared/index.ts'

const url = 'https://rpc.example/v2/abcdefghijklmnopqrstuvwxyz0123?key=secret'

test('a viem error: its short message and the node’s own words, never the request body or the URL', () => {
  const refused = new RpcRequestError({ body: { method: 'eth_sendRawTransaction', params: ['0x02f8…'] }, error: { code: -32000, message: 'nonce too low' }, url })
  expect(errorLine(refused)).toBe('RPC Request failed. (nonce too low)')
  const down = new HttpRequestError({ url, details: 'fetch failed' })
  expect(errorLine(down)).toBe('HTTP request failed. (fetch failed)')
  // Details already in the short message are not repeated.
  expect(errorLine(Object.assign(new Error('x'), { shortMessage: 'execution reverted: sold out', details: 'sold out' }))).toBe('execution reverted: sold out')
})

test('any other error: its first line, URLs redacted, whitespace collapsed, at most 300 characters', () => {
  expect(errorLine(new Error(`cannot reach ${url}\n    at somewhere (file.ts:1:1)`))).toBe('cannot reach https://rpc.example/v2/***')
  expect(errorLine(new Error('two   spaces\tand a tab'))).toBe('two spaces and a tab')
  expect(errorLine(new Error('x'.repeat(500)))).toBe('x'.repeat(300))
  expect(errorLine(new Error(''))).toBe('Error')
  expect(errorLine('a plain string\nsecond line')).toBe('a plain string')
  expect(errorLine(undefined)).toBe('undefined')
  expect(errorLine({})).toBe('unknown error')
})

test("a Worker's ErrorEvent: the error it carries, else Bun's `error:` line under the source excerpt", () => {
  expect(errorLine({ error: new Error('boom'), message: 'ignored' })).toBe('boom')
  expect(errorLine({ message: '1 | throw new Error("boom")\n    ^\nerror: boom\n    at file.ts:1' })).toBe('boom')
})
