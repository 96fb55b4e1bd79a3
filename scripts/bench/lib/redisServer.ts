import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { RedisClient } from 'bun'
import { freePort } from '../../../src/shared/index.ts'

export const redisServerPath = '/usr/bin/redis-server'
export const hasRedisServer = () => existsSync(redisServerPath)

/**
 * A throw-away Debian redis-server on a free 127.0.0.1 port (no snapshot, no
 * append-only file), answering PING when this resolves; `stop` kills it and removes
 * its directory. One per run: the replicas' claims and outcomes must not outlive
 * the devnet they were about.
 */
export async function startRedisServer(parentDir: string) {
  const dir = mkdtempSync(join(parentDir, 'redis-'))
  const port = await freePort()
  const child = Bun.spawn([redisServerPath, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'ignore',
  })
  const url = `redis://127.0.0.1:${port}`
  const deadline = Date.now() + 15_000
  for (;;) {
    const probe = new RedisClient(url, { autoReconnect: false, enableOfflineQueue: false, connectionTimeout: 1_000 })
    try {
      await probe.connect()
      await probe.send('PING', [])
      break
    } catch (error) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL')
        throw new Error(`redis-server on port ${port} did not answer PING within 15 s (${(error as Error).message})`)
      }
      await Bun.sleep(50)
    } finally {
      probe.close()
    }
  }
  return {
    url,
    async stop() {
      child.kill('SIGKILL')
      await child.exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
