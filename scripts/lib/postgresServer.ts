import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../../src/shared/index.ts'

// A throw-away PostgreSQL server for the tests and the bench (test/indexer/, scripts/bench/replica.ts).

/** Debian's PostgreSQL binaries (`apt-get install postgresql`, done by .ci/run). */
export const postgresBin = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'].find((dir) => existsSync(join(dir, 'postgres')))

/** Why PostgreSQL tests skip on this machine, or undefined when they can run. */
export const postgresMissing = postgresBin === undefined ? 'PostgreSQL binaries not found under /usr/lib/postgresql/*/bin (apt-get install postgresql)' : undefined

export type TestPostgres = Awaited<ReturnType<typeof startPostgres>>

/**
 * A throw-away PostgreSQL server: `initdb` into a temp directory, `postgres` on a free
 * port of 127.0.0.1 (socket in the same directory), one database created. As root the
 * server runs as the `postgres` user (initdb refuses root). `stop()` kills it and
 * removes the directory.
 */
export async function startPostgres(database = 'indexer') {
  const bin = postgresBin
  if (!bin) throw new Error(postgresMissing)
  const dir = mkdtempSync(join(tmpdir(), 'pg-test-'))
  const asRoot = process.getuid?.() === 0
  const user = asRoot ? 'postgres' : (process.env.USER ?? 'postgres')
  if (asRoot) {
    const pw = Bun.spawnSync(['id', '-u', 'postgres'], { stdout: 'pipe' })
    const gid = Bun.spawnSync(['id', '-g', 'postgres'], { stdout: 'pipe' })
    chownSync(dir, Number(pw.stdout.toString().trim()), Number(gid.stdout.toString().trim()))
    chmodSync(dir, 0o700)
  }
  const run = (args: string[]) => (asRoot ? ['runuser', '-u', 'postgres', '--', ...args] : args)
  const data = join(dir, 'data')
  const init = Bun.spawnSync(run([join(bin, 'initdb'), '-D', data, '-U', user, '--auth=trust', '-E', 'UTF8', '--no-sync']), { stdout: 'pipe', stderr: 'pipe' })
  if (init.exitCode !== 0) throw new Error(`initdb failed: ${init.stderr.toString()}`)
  const port = await freePort()
  const log = join(dir, 'postgres.log')
  let server = await launch()

  /** Starts the server on `port` over `data` and waits until it accepts connections. */
  async function launch() {
    const started = Bun.spawn(
      run([join(bin!, 'postgres'), '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200']),
      // Its log goes to a file: a pipe nobody reads would stall the server once full.
      { stdout: Bun.file(log), stderr: Bun.file(log) },
    )
    const deadline = Date.now() + 30_000
    for (;;) {
      const ready = Bun.spawnSync([join(bin!, 'pg_isready'), '-h', '127.0.0.1', '-p', String(port)], { stdout: 'pipe' })
      if (ready.exitCode === 0) return started
      if (Date.now() > deadline || started.exitCode !== null) {
        started.kill('SIGKILL')
        throw new Error(`postgres did not accept connections on port ${port} within 30 s: ${await Bun.file(log).text().catch(() => '')}`)
      }
      await Bun.sleep(100)
    }
  }

  /** Immediate shutdown of the server and its backends (a signal to runuser would not reach them all). */
  async function halt() {
    Bun.spawnSync(run([join(bin!, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop']), { stdout: 'pipe', stderr: 'pipe' })
    await Promise.race([server.exited, Bun.sleep(10_000)])
    if (server.exitCode === null) server.kill('SIGKILL')
  }
  const created = Bun.spawnSync(run([join(bin, 'createdb'), '-h', '127.0.0.1', '-p', String(port), '-U', user, database]), { stdout: 'pipe', stderr: 'pipe' })
  if (created.exitCode !== 0) throw new Error(`createdb failed: ${created.stderr.toString()}`)
  return {
    port,
    /** The test database's URL (trust authentication, no password). */
    url: `postgres://${user}@127.0.0.1:${port}/${database}`,
    /** An outage: the server goes down (its data kept) until `resume`. */
    pause: halt,
    /** The server again, same port and data. */
    async resume() {
      server = await launch()
    },
    async stop() {
      await halt()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
