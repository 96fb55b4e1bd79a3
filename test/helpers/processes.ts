import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import type { Subprocess } from 'bun'

/** True when nothing listens on 127.0.0.1:port. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/** The first port the kernel hands out to outgoing connections (Linux: ip_local_port_range; 32768 elsewhere). */
function firstEphemeralPort(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    return Number.isInteger(first) && first > 21_000 ? first : 32_768
  } catch {
    return 32_768
  }
}

/**
 * A base port with `count` free ports after it (anvil, relayer, indexer), below the
 * ephemeral range: a port checked free there cannot be taken by an outgoing connection
 * of another test before the process that asked for it listens on it.
 */
export async function freePortBase(count = 3): Promise<number> {
  const span = firstEphemeralPort() - 20_000 - count
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * span)
    const checks = await Promise.all(Array.from({ length: count }, (_, i) => isFree(base + i)))
    if (checks.every(Boolean)) return base
  }
  throw new Error('no free port range found')
}

/** Collects a child's output and waits for a line matching `pattern`. */
export function watchOutput(child: Subprocess<'ignore', 'pipe', 'pipe'>) {
  let text = ''
  const waiters: { pattern: RegExp; resolve: () => void }[] = []
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) {
      text += decoder.decode(chunk)
      for (const waiter of [...waiters]) {
        if (waiter.pattern.test(text)) {
          waiters.splice(waiters.indexOf(waiter), 1)
          waiter.resolve()
        }
      }
    }
  }
  void pump(child.stdout)
  void pump(child.stderr)
  return {
    get text() {
      return text
    },
    waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<void> {
      if (pattern.test(text)) return Promise.resolve()
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; output so far:\n${text}`)), timeoutMs)
        waiters.push({ pattern, resolve: () => (clearTimeout(timer), resolve()) })
      })
    },
  }
}

/** Command lines of running processes that contain `needle`. */
export async function processesMatching(needle: string): Promise<string[]> {
  const ps = Bun.spawn(['ps', '-eo', 'pid,args'], { stdout: 'pipe' })
  const out = await new Response(ps.stdout).text()
  return out.split('\n').filter((line) => line.includes(needle) && !line.includes('ps -eo'))
}
