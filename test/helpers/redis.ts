import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort } from '../../src/shared/index.ts'
import { watchOutput } from './processes.ts'

/** Debian's redis-server (`.ci/run` installs it with apt-get). */
export const redisServerPath = '/usr/bin/redis-server'
export const hasRedisServer = existsSync(redisServerPath)

export type TestRedis = Awaited<ReturnType<typeof startTestRedis>>

/**
 * A throw-away redis-server on a free 127.0.0.1 port: no snapshot, no append-only
 * file (plus `options.args`), its directory removed at `stop`. `kill` stops it hard (SIGKILL) and
 * `restart` starts it again on the same port.
 */
export async function startTestRedis(options: { /** More redis-server arguments, e.g. ['--requirepass', 'secret']. */ args?: string[] } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'order-relay-redis-'))
  const port = await freePort()
  let child: Subprocess<'ignore', 'pipe', 'pipe'> | undefined
  async function launch() {
    child = Bun.spawn([redisServerPath, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...(options.args ?? [])], {
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    await watchOutput(child).waitFor(/Ready to accept connections/, 15_000)
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
