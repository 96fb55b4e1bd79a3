// Docs that stand alone: README and docs/ rely on no document outside the
// repository, docs/routes.md names every code and every known revert, and the MCP
// configuration docs/mcp.md gives works when an MCP client starts it from elsewhere.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { type Devnet, seededLienId, startDevnet } from '../../src/devnet/index.ts'
import { ActivityQuerySchema, edgeErrorCodeList, IndexerReadinessSchema, relayErrorCodeList, revertFixes } from '../../src/wire/index.ts'

const repoRoot = resolve(import.meta.dir, '../..')
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8')
const docs = readdirSync(join(repoRoot, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => ({ name: `docs/${name}`, text: readFileSync(join(repoRoot, 'docs', name), 'utf8') }))
const routes = readFileSync(join(repoRoot, 'docs', 'routes.md'), 'utf8')
const mcp = readFileSync(join(repoRoot, 'docs', 'mcp.md'), 'utf8')

test('README and docs/ cite no specification or design file the repository does not hold', () => {
  for (const { name, text } of [{ name: 'README.md', text: readme }, ...docs]) {
    expect({ name, cites: text.match(/\b(SPEC|DESIGN|STYLE)\.md\b/g) ?? [] }).toEqual({ name, cites: [] })
  }
  expect(readme).toContain('[docs/routes.md](docs/routes.md)')
})

test('docs/routes.md describes every route, every code and every known revert', () => {
  for (const route of ['`POST /broker`', '`GET /info`', '`GET /api/openapi.json`', '`GET /health`', '`GET /activity`', '`GET /ready`', '`GET /status`', '`GET /`']) {
    expect(routes).toContain(route)
  }
  for (const code of [...relayErrorCodeList, ...edgeErrorCodeList, 'BAD_RESPONSE', 'NETWORK', 'UNAVAILABLE', 'NOT_IMPLEMENTED', 'BAD_QUERY']) {
    expect(routes).toContain(`\`${code}\``)
  }
  for (const { revert } of revertFixes) expect(routes).toContain(`| \`${revert}\` |`)
  for (const parameter of Object.keys(ActivityQuerySchema.entries)) expect(routes).toContain(`| \`${parameter}\` |`)
  expect(routes).toContain('`nextCursor`')
  for (const reason of IndexerReadinessSchema.entries.reason.wrapped.pipe[0].options) expect(routes).toContain(`| \`${reason}\` |`)
})

let devnet: Devnet
const dir = mkdtempSync(join(tmpdir(), 'order-relay-docs-'))
beforeAll(async () => {
  devnet = await startDevnet()
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
  rmSync(dir, { recursive: true, force: true })
})

test('docs/mcp.md\'s MCP configuration without the executable answers is_encumbered when started from another directory', async () => {
  // The JSON block that runs the sources, with the placeholder path filled in.
  const block = [...mcp.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]!).find((json) => json.includes('node_modules/.bin/bun'))
  const config = JSON.parse(block!.replaceAll('/absolute/path/to/clone', repoRoot)).mcpServers['order-relay'] as { command: string; args: string[] }
  expect(config.command).toBe(join(repoRoot, 'node_modules/.bin/bun'))
  // A throw-away manifest instead of the repository's own .devnet/.
  const manifest = join(dir, 'manifest.json')
  writeFileSync(manifest, JSON.stringify(devnet.manifest))
  const args = config.args.map((arg) => (arg === join(repoRoot, '.devnet/manifest.json') ? manifest : arg))
  expect(args).toEqual([join(repoRoot, 'src/cli/main.ts'), 'mcp', '--manifest', manifest])

  // As an MCP client starts it: its own working directory, a PATH without bun or npx.
  const transport = new StdioClientTransport({
    command: config.command,
    args,
    cwd: dir,
    env: { ...getDefaultEnvironment(), PATH: '/usr/bin:/bin' },
    stderr: 'pipe',
  })
  const client = new Client({ name: 'order-relay-docs-test', version: '1.0.0' })
  await client.connect(transport)
  try {
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['is_encumbered'])
    const result = await client.callTool({ name: 'is_encumbered', arguments: { lienId: seededLienId } })
    expect((result.structuredContent as { encumbered: boolean }).encumbered).toBe(true)
  } finally {
    await client.close()
  }
}, 60_000)
