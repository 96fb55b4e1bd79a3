import { freePortRange } from '../../src/shared/index.ts'
import type { Subprocess } from 'bun'

/**
 * A base port with `count` free ports after it (anvil, relayer, indexer), below the
 * kernel's ephemeral range (src/shared/freePort.ts).
 */
export function freePortBase(count = 3): Promise<number> {
  return freePortRange(count)
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
