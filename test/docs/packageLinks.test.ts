// The package's docs are the package's: every relative link in a page the npm package
// ships (README.md, docs/, the example's) points at a file or folder the package holds,
// so nothing a contract developer reads inside node_modules/order-relay is a dead link.
import { expect, test } from 'bun:test'
import { dirname, join, normalize } from 'node:path'

const repo = join(import.meta.dir, '../..')

/** The files `npm pack` would put in the tarball (no build: lifecycle scripts off). */
async function packedFiles(): Promise<string[]> {
  const child = Bun.spawn(['npm', 'pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repo, stdout: 'pipe', stderr: 'pipe', env: { ...process.env, npm_config_update_notifier: 'false' } })
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  if (code !== 0) throw new Error(`npm pack --dry-run exited ${code}: ${err.slice(-2000)}`)
  return (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path)
}

/** Relative link targets of a Markdown page, without their #fragment. */
function relativeLinks(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!)
  return targets.filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('#')).map((target) => target.split('#')[0]!)
}

test('every relative link in a shipped page points at something the package ships', async () => {
  const files = await packedFiles()
  const shipped = new Set(files)
  const holds = (path: string) => shipped.has(path) || files.some((file) => file.startsWith(`${path.replace(/\/$/, '')}/`))
  const pages = files.filter((file) => file.endsWith('.md'))
  // The pages the package's users read first, and the example they copy.
  for (const page of ['README.md', 'docs/client.md', 'docs/contract-testing.md', 'docs/routes.md', 'docs/errors.md', 'examples/contract-e2e/package.json']) expect(files).toContain(page)
  const dead: string[] = []
  for (const page of pages) {
    const text = await Bun.file(join(repo, page)).text()
    for (const target of relativeLinks(text)) {
      const path = normalize(join(dirname(page), target))
      if (!holds(path)) dead.push(`${page} → ${target}`)
    }
  }
  expect(dead).toEqual([])
}, 60_000)
