// SHA256SUMS in the format `sha256sum -c` reads: `<hex>  <file name>` per line.
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'

/**
 * The file's SHA-256, hex.
 *
 * @example
 * await sha256File('dist/release/order-relay-0.1.0-linux-x64') // 'e3b0c442…'
 */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/**
 * Writes `SHA256SUMS` in `dir` for `files` (paths inside it), sorted by name, and returns its path.
 *
 * @example
 * await writeChecksums('dist/release', ['dist/release/order-relay-0.1.0-linux-x64'])
 */
export async function writeChecksums(dir: string, files: string[]): Promise<string> {
  const lines = await Promise.all([...files].sort().map(async (file) => `${await sha256File(file)}  ${basename(file)}`))
  const path = join(dir, 'SHA256SUMS')
  await writeFile(path, lines.map((line) => `${line}\n`).join(''))
  return path
}
