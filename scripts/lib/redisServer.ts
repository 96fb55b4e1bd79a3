import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort } from '../../src/shared/index.ts'

/** Debian's redis-server (`.ci/run` installs it with apt-get). */
export const redisServerPath = '/usr/bin/redis-server'
export const hasRedisServer = existsSync(redisServerPath)

export type TestRedis = Awaited<ReturnType<typeof startRedis>>

/**
 * A throw-away redis-server on a free 127.0.0.1 port: no snapshot, no append-only file
 * (plus `args`), ready to accept connections when this resolves; its directory (under
 * `parentDir`, the system's temp dir by default) removed at `stop`. `kill` stops it hard
 * (SIGKILL) and `restart` starts it again on the same port, empty.
 *
 * @example
 * const redis = await startRedis({ args: ['--requirepass', 'secret'] })
 * // RELAYER_REDIS_URL=redis://:secret@127.0.0.1:<port>
 * await redis.stop()
 */
export async function startRedis(options: { /** More redis-server arguments. */ args?: string[]; parentDir?: string } = {}) {
  const dir = mkdtempSync(join(options.parentDir ?? tmpdir(), 'order-relay-redis-'))
  const port = await freePort()
  let child: Subprocess<'ignore', 'pipe', 'ignore'> | undefined
  async function launch() {
    child = Bun.spawn([redisServerPath, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...(options.args ?? [])], {
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'ignore',
    })
    await readyIn(child, 15_000)
  }
  async function kill() {
    if (!child) return
    child.kill('SIGKILL')
    await child.exited
    child = undefined
  }
  await launch()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    restart: launch,
    async stop() {
      await kill()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Resolves once redis-server logs that it accepts connections (its log read to the end meanwhile, so the pipe never fills). */
async function readyIn(child: Subprocess<'ignore', 'pipe', 'ignore'>, timeoutMs: number): Promise<void> {
  let log = ''
  let ready!: () => void
  const seen = new Promise<void>((resolve) => (ready = resolve))
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of child.stdout) {
      log += decoder.decode(chunk)
      if (log.includes('Ready to accept connections')) ready()
    }
  })()
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`redis-server did not accept connections within ${timeoutMs} ms; its log:\n${log}`)), timeoutMs)))
  const ended = child.exited.then((code) => Promise.reject(new Error(`redis-server exited (${code}) before it accepted connections; its log:\n${log}`)))
  try {
    await Promise.race([seen, late, ended])
  } finally {
    clearTimeout(timer)
    ended.catch(() => {})
  }
}
