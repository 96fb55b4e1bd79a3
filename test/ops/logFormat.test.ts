// LOG_FORMAT=json: one JSON object per line with time, level, message and the
// access log's exact fields; a bad value is a configuration error (exit 2).
import { describe, expect, test } from 'bun:test'
import { main } from '../../src/cli/index.ts'
import { ConfigError, createMemoryLogger, readLogFormat } from '../../src/shared/index.ts'
import { offlineRelayer } from '../helpers/offlineRelayer.ts'

describe('LOG_FORMAT', () => {
  test('text is the default; json and text are accepted; anything else is a ConfigError', () => {
    expect(readLogFormat({})).toBe('text')
    expect(readLogFormat({ LOG_FORMAT: 'json' })).toBe('json')
    expect(readLogFormat({ LOG_FORMAT: 'text' })).toBe('text')
    expect(() => readLogFormat({ LOG_FORMAT: 'yaml' })).toThrow(ConfigError)
    expect(() => readLogFormat({ LOG_FORMAT: 'yaml' })).toThrow('LOG_FORMAT must be text or json (got "yaml")')
  })

  test('json lines carry time, level, message and the fields', () => {
    const logger = createMemoryLogger('json')
    logger.warn('gas low', { balance: '5' })
    logger.error('boom')
    const [warn, error] = logger.lines.map((line) => JSON.parse(line))
    expect(Object.keys(warn)).toEqual(['time', 'level', 'message', 'balance'])
    expect(warn).toMatchObject({ level: 'warn', message: 'gas low', balance: '5' })
    expect(new Date(warn.time).toISOString()).toBe(warn.time)
    expect(error).toMatchObject({ level: 'error', message: 'boom' })
  })

  test('the access log keeps exactly method, path, status and code, on POST /broker and on the hono routes', async () => {
    for (const format of ['text', 'json'] as const) {
      const { relayer, logger } = offlineRelayer({}, undefined, format)
      logger.lines.length = 0 // the start-up warning about the in-memory journal
      const body = JSON.stringify({ order: { nonce: 1 }, signature: '0xdead' })
      await relayer.app.request('/broker?secret=1', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      await relayer.app.request('/nope?secret=1')
      const expected = [
        { message: 'POST /broker 400 MALFORMED_ORDER', method: 'POST', path: '/broker', status: 400, code: 'MALFORMED_ORDER' },
        { message: 'GET /nope 404 NOT_FOUND', method: 'GET', path: '/nope', status: 404, code: 'NOT_FOUND' },
      ]
      if (format === 'text') {
        expect(logger.lines).toEqual(expected.map((line) => line.message))
      } else {
        const lines = logger.lines.map((line) => JSON.parse(line) as Record<string, unknown>)
        for (const line of lines) expect(Object.keys(line)).toEqual(['time', 'level', 'message', 'method', 'path', 'status', 'code'])
        expect(lines.map(({ time: _, ...rest }) => rest)).toEqual(expected.map((line) => ({ level: 'info', ...line })))
      }
    }
  })

  test('a bad LOG_FORMAT exits 2 naming the variable', async () => {
    const err: string[] = []
    const code = await main(['relayer'], { env: { LOG_FORMAT: 'xml' }, out: () => {}, err: (line) => err.push(line), signal: new AbortController().signal })
    expect(code).toBe(2)
    expect(err[0]).toBe('order-relay relayer: LOG_FORMAT must be text or json (got "xml")')
  })
})
