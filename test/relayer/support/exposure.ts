import type { Hex } from 'viem'
import type { RelayRequest } from '../../../src/wire/index.ts'

/**
 * Everything a test file's relayers said (every log line, every response body) and
 * every secret they were trusted with (gas keys, signatures r/s), so one final test
 * can prove no secret ever came out, and that the access log has exactly one
 * `METHOD PATH STATUS CODE` line per request.
 */
export function createExposure() {
  const bodies: string[] = []
  const logs: string[][] = []
  const secrets = new Set<string>()

  const addHex = (hex: string) => {
    const bare = hex.replace(/^0x/i, '').toLowerCase()
    if (bare.length < 16) return
    secrets.add(bare)
  }

  return {
    /** A response body as received (text). */
    body(text: string) {
      bodies.push(text)
    },
    /** A relayer's log lines array, read at check time (it keeps growing). */
    logger(lines: string[]) {
      logs.push(lines)
    },
    key(privateKey: Hex) {
      addHex(privateKey)
    },
    request(request: Pick<RelayRequest, 'signature'>) {
      addHex(request.signature.r)
      addHex(request.signature.s)
    },
    get counts() {
      return { bodies: bodies.length, lines: logs.reduce((n, lines) => n + lines.length, 0), secrets: secrets.size }
    },
    /** Every log line or body that contains a secret (compared without 0x and case-insensitively). */
    leaks(): string[] {
      const found: string[] = []
      const texts = [...bodies, ...logs.flat()]
      for (const text of texts) {
        const lower = text.toLowerCase()
        for (const secret of secrets) if (lower.includes(secret)) found.push(lower.replaceAll(secret, '<SECRET>').slice(0, 160))
      }
      return found
    },
  }
}

export type Exposure = ReturnType<typeof createExposure>
