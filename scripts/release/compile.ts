// The one `bun build --compile` command every executable is made with (scripts/build.ts
// for dist/order-relay, scripts/release.ts for each platform), so they embed the same
// two entry points the same way.
import { type BuildMetadata, defineArgs } from './metadata.ts'

export type CompileOptions = {
  /** The repository root (the entry points are relative to it). */
  root: string
  outfile: string
  /** A Bun compile target (`bun-linux-arm64`); the running platform when absent. */
  bunTarget?: string
  metadata: BuildMetadata
  env?: Record<string, string | undefined>
}

export type CompileResult = { ok: true } | { ok: false; output: string }

/**
 * The command line. prool can also start alto (a bundler) through an optional peer
 * dependency never used here. --bytecode: modules are parsed at build time, not at every
 * start (--version 120-140 ms → 50-80 ms). The relayer's signer thread is a Worker: its
 * module is a second entry point, embedded at relayer/submitter/signerThread.ts under the
 * bundle's root (src/, which both entries share; src/relayer/submitter/txSigner.ts starts
 * it by that path).
 *
 * @example
 * compileCommand({ root: '.', outfile: 'dist/order-relay', metadata })
 */
export function compileCommand(options: CompileOptions): string[] {
  return [
    process.execPath,
    'build',
    '--compile',
    ...(options.bunTarget ? [`--target=${options.bunTarget}`] : []),
    '--minify',
    '--sourcemap',
    '--bytecode',
    '--format=esm',
    '--external',
    '@pimlico/alto',
    ...defineArgs(options.metadata),
    'src/cli/main.ts',
    'src/relayer/submitter/signerThread.ts',
    '--outfile',
    options.outfile,
  ]
}

/**
 * Compiles one executable; on failure resolves with Bun's output (which names what it
 * could not do, e.g. `Failed to download 'bun-windows-x64-v1.4.5': ConnectionRefused`).
 *
 * @example
 * const result = await compile({ root, outfile: 'dist/order-relay', metadata: readBuildMetadata(root) })
 */
export async function compile(options: CompileOptions): Promise<CompileResult> {
  const child = Bun.spawn(compileCommand(options), { cwd: options.root, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore', env: { ...process.env, ...options.env } })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return code === 0 ? { ok: true } : { ok: false, output: `${stderr}${stdout}`.trim() }
}
