import { basename } from 'node:path'

/**
 * How the user started this program, to print runnable next steps: the compiled
 * executable's own path, or the source entry run through bun.
 */
export function invocation(): string {
  const exe = basename(process.execPath)
  if (/^(bun|node)(\.exe)?$/.test(exe)) return 'npx bun src/cli/main.ts'
  return process.argv0.includes('/') ? process.argv0 : process.execPath
}
