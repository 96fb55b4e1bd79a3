// `order-relay key import` on a terminal (a pty from util-linux `script`): the key and
// the password are asked without echo, the password twice, and a keystore that opens
// is written; two different passwords write nothing. Nothing typed shows on the terminal.
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateKeyToAddress } from 'viem/accounts'
import { decryptKeystore } from '../../src/signers/keystore/index.ts'
import { shellQuote } from '../../src/cli/lib/invocation.ts'
import { waitFor } from '../helpers/waitFor.ts'

// `script` (util-linux, in Debian's bsdutils, always installed) gives the command a terminal.
const hasScript = Bun.which('script') !== null
if (!hasScript) console.warn('keyTerminal.test.ts: skipped because util-linux `script` is not installed (apt-get install bsdutils)')

const repo = join(import.meta.dir, '../..')
const dir = mkdtempSync(join(tmpdir(), 'order-relay-key-tty-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const key = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba'
const password = 'typed at the terminal'

/** Starts `order-relay key …` on a pty; `answer(prompt, text)` waits for the prompt and types a line. */
function onTerminal(args: string[]) {
  const command = [process.execPath, join(repo, 'src/cli/main.ts'), 'key', ...args].map(shellQuote).join(' ')
  const child = Bun.spawn(['script', '-qfec', command, '/dev/null'], { cwd: dir, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'dumb' } })
  let screen = ''
  let answered = 0
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of child.stdout) screen += decoder.decode(chunk)
  })()
  return {
    get screen() {
      return screen
    },
    async answer(prompt: string, text: string) {
      // Echo goes off before a prompt shows (secretInput.ts), so typing after it is never echoed.
      await waitFor(`the prompt ${JSON.stringify(prompt)}`, () => screen.slice(answered).includes(prompt))
      answered = screen.length
      child.stdin.write(`${text}\r`)
      child.stdin.flush()
    },
    exited: child.exited,
  }
}

describe.skipIf(!hasScript)('key import on a terminal', () => {
  test('the key and the password (twice) asked without echo; the keystore opens to the key', async () => {
    const out = join(dir, 'typed.json')
    const run = onTerminal(['import', '--out', out, '--kdf', 'pbkdf2'])
    await run.answer('Private key (0x + 64 hex, not shown): ', key)
    await run.answer('Keystore password (not shown): ', password)
    await run.answer('The same password again: ', password)
    expect(await run.exited).toBe(0)
    await waitFor('the next step on the screen', () => run.screen.includes('next: RELAYER_KEYSTORE='))
    expect(run.screen).toContain(`address  ${privateKeyToAddress(key)}`)
    expect(run.screen).not.toContain(password)
    expect(run.screen).not.toContain(key.slice(2))
    expect(await decryptKeystore(readFileSync(out, 'utf8'), password, { path: out })).toBe(key)
  })
  test('two different passwords write nothing', async () => {
    const out = join(dir, 'mismatch.json')
    const run = onTerminal(['import', '--out', out])
    await run.answer('Private key (0x + 64 hex, not shown): ', key)
    await run.answer('Keystore password (not shown): ', password)
    await run.answer('The same password again: ', `${password}!`)
    expect(await run.exited).toBe(1)
    await waitFor('the refusal on the screen', () => run.screen.includes('fix: '))
    expect(run.screen).toContain('order-relay key: the two passwords differ; nothing was written')
    expect(run.screen).toContain('fix: run the command again and type the same password twice')
    expect(run.screen).not.toContain(password)
    expect(existsSync(out)).toBe(false)
  })
})
