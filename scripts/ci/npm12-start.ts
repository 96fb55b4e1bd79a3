// README's first command with npm 12, the npm registry's current npm, which runs a
// dependency's install script only when package.json's `allowScripts` approves it: a
// clone of this checkout, `npx -y npm@12 ci` in it (bun's postinstall must run, or the
// package's own `prepare` finds no bun), then `npm start` until it says it is ready, the
// order it prints settled, and Ctrl-C (SIGINT to its process group) stopping it with exit 0.
//
//   bun scripts/ci/npm12-start.ts
//
// Exits 0 when every step holds, 1 naming the step that did not. Takes about 3 minutes
// (most of it the install).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePortRange } from '../../src/shared/index.ts'
import { type Child, spawnChild } from '../bench/lib/processes.ts'
import { waitForOutput } from './release-smoke.ts'

const repoRoot = resolve(import.meta.dir, '../..')
const dir = mkdtempSync(join(tmpdir(), 'order-relay-npm12-'))
const clone = join(dir, 'order-relay')

/** Command lines of running processes that contain `needle`. */
async function processesMatching(needle: string): Promise<string[]> {
  const out = await new Response(Bun.spawn(['ps', '-eo', 'pid,args'], { stdout: 'pipe' }).stdout).text()
  return out.split('\n').filter((line) => line.includes(needle) && !line.includes('ps -eo'))
}

/** Runs `command` in `cwd` with its output shown, killed past `seconds`; throws naming `step` unless it exits 0. */
async function run(step: string, command: string[], cwd: string, seconds: number): Promise<string> {
  console.log(`npm12-start: ${step}: ${command.join(' ')}`)
  const child = Bun.spawn(command, { cwd, stdout: 'pipe', stderr: 'inherit', stdin: 'ignore' })
  const timer = setTimeout(() => child.kill('SIGKILL'), seconds * 1000)
  const output = await new Response(child.stdout).text()
  const exit = await child.exited
  clearTimeout(timer)
  process.stdout.write(output)
  if (exit !== 0) throw new Error(`${step} exited ${exit}${child.signalCode === 'SIGKILL' ? ` (killed after ${seconds} s)` : ''}`)
  return output
}

/** `npm start` in the clone on free ports, once it says it is ready; its process group is its own (setsid), as in a terminal. */
async function npmStart(base: number, manifest: string) {
  const command = ['setsid', 'npm', 'start', '--', '--port-base', String(base), '--manifest', manifest]
  console.log(`npm12-start: npm start: ${command.slice(1).join(' ')}`)
  return spawnChild(command, process.env, { cwd: clone })
}

let started: Child | undefined
let failure: string | undefined
try {
  const npmVersion = (await run('npm 12', ['npx', '-y', 'npm@12', '--version'], dir, 120)).trim()
  if (!npmVersion.startsWith('12.')) throw new Error(`npx -y npm@12 runs npm ${npmVersion}, not 12`)
  await run('clone', ['git', 'clone', '-q', repoRoot, clone], dir, 120)
  await run('npm 12 ci', ['npx', '-y', 'npm@12', 'ci', '--no-audit', '--no-fund'], clone, 900)

  const base = await freePortRange(3)
  const manifest = join(dir, 'devnet.json')
  const child = await npmStart(base, manifest)
  started = child
  try {
    await waitForOutput(child, /Ctrl-C stops everything/, 'npm start saying it is ready', 180_000)
  } finally {
    process.stdout.write(child.output)
  }
  if (!child.output.includes('devnet ready: chain ')) throw new Error('npm start did not say "devnet ready"')

  // The line under "Next: settle an order", run from another folder as a reader would paste it.
  const lines = child.output.split('\n')
  const printed = lines[lines.findIndex((line) => line.startsWith('Next: settle an order')) + 1]?.trim()
  if (!printed) throw new Error('npm start printed no next step')
  const settled = await run('the printed order', ['sh', '-c', printed], dir, 120)
  const result = JSON.parse(settled) as { ok?: boolean; txHash?: string }
  if (result.ok !== true) throw new Error(`the printed order did not settle: ${settled}`)
  console.log('npm12-start: the printed order settled')

  // Ctrl-C: SIGINT to the whole group (npm, bun, anvil); everything stops and npm exits 0.
  process.kill(-child.pid, 'SIGINT')
  const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 30_000)
  const exit = await child.exited
  clearTimeout(timer)
  started = undefined
  if (exit !== 0) throw new Error(`npm start exited ${exit} after Ctrl-C:\n${child.output}`)
  const left = [...(await processesMatching(`--port-base ${base} `)), ...(await processesMatching(`--port ${base} `))]
  if (left.length > 0) throw new Error(`still running after Ctrl-C:\n${left.join('\n')}`)
  console.log('npm12-start: Ctrl-C stopped npm start, exit 0')
} catch (error) {
  failure = error instanceof Error ? error.message : String(error)
} finally {
  if (started) {
    try {
      process.kill(-started.pid, 'SIGKILL')
    } catch {}
    await started.exited
  }
  rmSync(dir, { recursive: true, force: true })
}

if (failure) {
  console.error(`npm12-start: ${failure}`)
  process.exit(1)
}
console.log('npm12-start: npx -y npm@12 ci, npm start, the printed order and Ctrl-C all hold')
