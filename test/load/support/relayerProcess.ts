import type { Subprocess } from 'bun'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Devnet } from '../../../src/devnet/index.ts'
import { devnetAccounts, manifestTokensVariable } from '../../../src/devnet/index.ts'
import { freePort } from '../../../src/shared/index.ts'

/**
 * `order-relay relayer` as its own process (from source), so "the relayer never
 * exits" is a fact about a process, not about a test's event loop.
 */
export async function startRelayerProcess(devnet: Devnet, env: Record<string, string>) {
  const port = await freePort()
  // A throw-away journal unless the test names one (to restart on the same journal).
  const scratch = env.RELAYER_DB ? undefined : mkdtempSync(join(tmpdir(), 'order-relay-process-'))
  const child: Subprocess<'ignore', 'pipe', 'pipe'> = Bun.spawn([process.execPath, 'src/cli/main.ts', 'relayer'], {
    env: {
      PATH: process.env.PATH ?? '',
      RELAYER_PK: devnetAccounts.relayer.privateKey,
      RELAYER_CHAIN_ID: String(devnet.chainId),
      RELAYER_BROKER: devnet.manifest.contracts.broker,
      ...manifestTokensVariable(devnet.manifest),
      RELAYER_PORT: String(port),
      ...(scratch ? { RELAYER_DB: join(scratch, 'journal.sqlite') } : {}),
      ...env,
    },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let output = ''
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true })
  }
  void pump(child.stdout)
  void pump(child.stderr)
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 20_000
  for (;;) {
    const ok = await fetch(`${url}/info`).then((response) => response.ok, () => false)
    if (ok) break
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      await child.exited
      if (scratch) rmSync(scratch, { recursive: true, force: true })
      throw new Error(`the relayer did not start:\n${output}`)
    }
    await Bun.sleep(20)
  }
  return {
    url,
    child,
    get output() {
      return output
    },
    /** SIGTERM and the exit code (the relayer drains what it broadcast, then exits). */
    async stop(): Promise<number> {
      try {
        if (child.exitCode !== null) return child.exitCode
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
        const code = await child.exited
        clearTimeout(timer)
        return code
      } finally {
        // Also when the test killed the process itself: the throw-away journal goes.
        if (scratch) rmSync(scratch, { recursive: true, force: true })
      }
    },
  }
}
