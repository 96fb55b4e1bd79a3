import type { Exposure } from '../../relayer/support/exposure.ts'

/**
 * A fetch for the client library that hands every request's signature and every
 * answer's body to `exposure`, so the leak check covers what went through the client.
 */
export function recordingFetch(exposure: Exposure): typeof fetch {
  const recording = async (input: string | URL | Request, init?: RequestInit) => {
    if (typeof init?.body === 'string') {
      try {
        const signature = (JSON.parse(init.body) as { signature?: { r?: unknown; s?: unknown } }).signature
        if (typeof signature?.r === 'string' && typeof signature.s === 'string') exposure.request({ signature: signature as never })
      } catch {}
    }
    const response = await fetch(input, init)
    exposure.body(await response.clone().text())
    return response
  }
  return recording as typeof fetch
}
