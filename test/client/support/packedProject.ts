import { copyFile, mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The repository, which `npm pack` packs. */
export const repo = join(import.meta.dir, '../../..')
/** The consumer project's files (test/client/package). */
export const fixtures = join(import.meta.dir, '../package')

/** Runs `cmd` in `cwd` and returns its stdout; a non-zero exit throws with the end of its output. */
export async function run(cmd: string[], cwd: string): Promise<string> {
  const child = Bun.spawn(cmd, { cwd, stdout: 'pipe', stderr: 'pipe', env: { ...process.env, npm_config_update_notifier: 'false' } })
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  if (exitCode !== 0) throw new Error(`${cmd.join(' ')} exited ${exitCode}:\n${`${stdout}${stderr}`.slice(-4000)}`)
  return stdout
}

/**
 * A throw-away project named `name` with the packed package installed as a user installs
 * it (`npm pack`, then `npm install <tarball>`) and `files` copied from the fixtures.
 * `work` holds the tarball and the project: remove it when done.
 */
export async function installPackedProject(name: string, files: string[]): Promise<{ work: string; project: string }> {
  const work = await mkdtemp(join(tmpdir(), `${name}-`))
  const project = join(work, 'project')
  await run(['npm', 'pack', '--pack-destination', work], repo)
  const tarball = (await readdir(work)).find((file) => file.endsWith('.tgz'))
  if (!tarball) throw new Error(`npm pack wrote no tarball into ${work}`)
  await mkdir(project)
  await writeFile(join(project, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }))
  await run(['npm', 'install', '--prefer-offline', '--no-audit', '--no-fund', join(work, tarball)], project)
  for (const file of files) await copyFile(join(fixtures, file), join(project, file))
  return { work, project }
}
