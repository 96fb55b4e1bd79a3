import { closeSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { decryptKeystore, encryptKeystore } from '../../signers/keystore/index.ts'
import { type Command, CommandError, parseFlags, UsageError } from '../command.ts'
import { invocation, shellQuote } from '../lib/invocation.ts'
import { promptHidden, readStdinLines, stdinIsTerminal } from '../lib/secretInput.ts'

/** Where the secrets come from: a terminal asks without echo; a pipe gives them line by line. */
type Secrets = { lines?: string[] }

async function pipedLines(secrets: Secrets): Promise<string[]> {
  secrets.lines ??= await readStdinLines()
  return secrets.lines
}

/** The private key to import: asked without echo on a terminal, else stdin's first line. Never echoed back, not even in an error. */
async function readPrivateKey(secrets: Secrets): Promise<Hex> {
  const text = (stdinIsTerminal() ? await promptHidden('Private key (0x + 64 hex, not shown): ') : (await pipedLines(secrets))[0] ?? '').trim()
  const notAKey = 'the private key read from ' + (stdinIsTerminal() ? 'the prompt' : "stdin's first line") + ' is not 0x + 64 hex digits of a valid secp256k1 key'
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(text)) throw new UsageError(notAKey)
  const key = (text.startsWith('0x') ? text : `0x${text}`).toLowerCase() as Hex
  try {
    privateKeyToAddress(key)
  } catch {
    throw new UsageError(notAKey)
  }
  return key
}

/** The password the keystore is written with (see the `key` command's help for where it comes from). */
async function readNewPassword(secrets: Secrets, passwordFile: string | undefined, line: number): Promise<string> {
  let password: string
  if (passwordFile !== undefined) {
    try {
      password = readFileSync(passwordFile, 'utf8').replace(/\r?\n$/, '')
    } catch (error) {
      throw new UsageError(`cannot read --password-file ${passwordFile}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`)
    }
  } else if (stdinIsTerminal()) {
    password = await promptHidden('Keystore password (not shown): ')
    if (password !== '' && (await promptHidden('The same password again: ')) !== password) {
      throw new CommandError('the two passwords differ; nothing was written', { fix: 'run the command again and type the same password twice' })
    }
  } else {
    password = (await pipedLines(secrets))[line] ?? ''
  }
  if (password === '') {
    const where = passwordFile !== undefined ? `--password-file ${passwordFile} is empty` : stdinIsTerminal() ? 'the password is empty' : `no password on stdin (line ${line + 1})`
    throw new UsageError(`${where}: a keystore needs a password`)
  }
  return password
}

/**
 * Writes `text` to `path` with mode 0600, never over an existing file: it goes to a
 * temporary file beside it first, then is linked to `path` (which fails if `path`
 * exists), so a crash leaves no half-written keystore under the real name. Where the
 * filesystem has no hard links, `path` is created exclusively (`wx`) instead.
 */
function writeNew(path: string, text: string) {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`)
  let fd: number
  try {
    fd = openSync(temp, 'wx', 0o600)
  } catch (error) {
    throw new CommandError(`cannot write the keystore in ${dirname(path)}: ${(error as NodeJS.ErrnoException).code ?? 'unwritable'}`, { fix: 'pass --out with a path in a writable folder' })
  }
  try {
    writeSync(fd, text)
    fsyncSync(fd)
    closeSync(fd)
    try {
      linkSync(temp, path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw error
      // A filesystem without hard links: create the file itself, still never over another.
      const direct = openSync(path, 'wx', 0o600)
      writeSync(direct, text)
      fsyncSync(direct)
      closeSync(direct)
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw exists(path)
    throw new CommandError(`cannot write the keystore ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unwritable'}`, { fix: 'pass --out with a path in a writable folder' })
  } finally {
    unlinkSync(temp)
  }
}

const exists = (path: string) =>
  new CommandError(`${path} exists; a keystore is never overwritten`, { fix: 'pass --out with another path, or move the existing file away first (it may hold the only copy of a key)' })

export const keyCommand: Command = {
  name: 'key',
  summary: 'write an encrypted keystore (Web3 Secret Storage v3) for the gas key',
  usage: 'new|import [options]',
  arguments: [
    'new     make a random key and write its keystore',
    'import  write the keystore of a key you have: read without echo from the terminal, else stdin\'s first line',
  ],
  options: [
    '--out FILE            where to write it, never over an existing file (default ./keystore-<address>.json)',
    '--kdf KIND            scrypt (default, n=2^18 r=8 p=1 as geth and cast) or pbkdf2 (hmac-sha256)',
    '--password-file FILE  read the password from FILE (one trailing newline dropped); without it the',
    '                      password is asked twice without echo on a terminal, else read from stdin:',
    '                      its first line for `new`, its second for `import` (the first is the key)',
  ],
  environment: [],
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { out: { type: 'string' }, kdf: { type: 'string' }, 'password-file': { type: 'string' } }, true)
    // Arguments are never echoed back: a key or password typed by mistake would land in the output.
    const [action, ...extra] = positionals
    if (action !== 'new' && action !== 'import') throw new UsageError('expects a subcommand: new or import')
    if (extra.length > 0) throw new UsageError(`${action} takes no arguments (the key and the password are never given as arguments)`)
    const kdf = values.kdf ?? 'scrypt'
    if (kdf !== 'scrypt' && kdf !== 'pbkdf2') throw new UsageError('--kdf must be scrypt or pbkdf2')
    if (values.out !== undefined && existsSync(values.out)) throw exists(resolve(values.out))

    const secrets: Secrets = {}
    const key = action === 'new' ? generatePrivateKey() : await readPrivateKey(secrets)
    const password = await readNewPassword(secrets, values['password-file'], action === 'new' ? 0 : 1)
    const address = privateKeyToAddress(key)
    const out = resolve(values.out ?? `keystore-${address}.json`)
    if (existsSync(out)) throw exists(out)
    const file = await encryptKeystore(key, password, { kdf })
    // Read back before writing: the file on disk opens with this password to this address.
    const check = await decryptKeystore(file, password, { path: out })
    if (check !== key) throw new CommandError('the keystore did not decrypt to the key it was written from; nothing was written')
    writeNew(out, `${JSON.stringify(file)}\n`)

    const passwordFile = values['password-file'] !== undefined ? shellQuote(resolve(values['password-file'])) : '/path/to/password-file'
    io.out(`address  ${address}`)
    io.out(`keystore ${out} (mode 0600)`)
    io.out(`next: RELAYER_KEYSTORE=${shellQuote(out)} RELAYER_KEYSTORE_PASSWORD_FILE=${passwordFile} ${invocation()} relayer`)
    if (values['password-file'] === undefined) io.err('Put the password in a file of its own (mode 0600) for RELAYER_KEYSTORE_PASSWORD_FILE, or give it as the systemd credential of that name.')
    return 0
  },
}
