import { CommandError } from '../command.ts'

/** True when stdin is a terminal: secrets are then asked for without echo, else read from the pipe. */
export const stdinIsTerminal = (): boolean => process.stdin.isTTY === true

/**
 * Asks for a secret on the terminal without echoing it: the question goes to stderr,
 * the answer is read in raw mode until Enter (Backspace edits, Ctrl-C or Ctrl-D on an
 * empty line cancels). Only for a terminal stdin (stdinIsTerminal).
 *
 * @example
 * const password = await promptHidden('Password: ')
 */
export function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin
  // Echo goes off before the question shows, so an answer typed at once is never echoed.
  stdin.setRawMode(true)
  process.stderr.write(question)
  return new Promise((resolve, reject) => {
    let value: string[] = []
    const finish = (error?: Error) => {
      stdin.off('data', onData)
      stdin.setRawMode(false)
      stdin.pause()
      process.stderr.write('\n')
      if (error) reject(error)
      else resolve(value.join(''))
      value = []
    }
    const onData = (chunk: Buffer | string) => {
      for (const char of String(chunk)) {
        if (char === '\r' || char === '\n') return finish()
        if (char === '\u0003' || (char === '\u0004' && value.length === 0)) return finish(new CommandError('cancelled at the prompt; nothing was written'))
        if (char === '\u007f' || char === '\b') value.pop()
        else if (char >= ' ' || char === '\t') value.push(char)
      }
    }
    stdin.setEncoding('utf8')
    stdin.on('data', onData)
    stdin.resume()
  })
}

/** Everything piped to stdin, split into lines (`\n` or `\r\n`). */
export async function readStdinLines(): Promise<string[]> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)
}
