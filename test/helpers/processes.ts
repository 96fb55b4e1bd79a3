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

/** A base port with `count` free ports after it (anvil, relayer, indexer). */
export async function freePortBase(count = 3): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000)
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
