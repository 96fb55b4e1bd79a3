import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A throw-away directory for journals, removed by `remove`. */
export function scratchDir() {
  const path = mkdtempSync(join(tmpdir(), 'order-relay-chaos-'))
  return { path, file: (name: string) => join(path, name), remove: () => rmSync(path, { recursive: true, force: true }) }
}

/** POST /broker; a connection cut by a killed relayer is status 0. */
export async function post(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    const response = await fetch(`${url}/broker`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  } catch {
    return { status: 0, body: {} }
  }
}
