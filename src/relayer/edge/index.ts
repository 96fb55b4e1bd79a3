import type { MiddlewareHandler } from 'hono'
import type { Address, PublicClient } from 'viem'
import type { Logger } from '../../shared/index.ts'
import type { EdgeConfig } from '../config.ts'

/**
 * The hardened edge (SPEC.md 4.5): middleware around the unchanged pipeline.
 * Placeholder until issue 4: no middleware when the edge is off.
 */
export function createEdge(config: EdgeConfig, _deps: { client: PublicClient; address: Address; logger: Logger }) {
  const middleware: MiddlewareHandler[] = []
  if (config.enabled) throw new Error('the hardened edge is not built yet')
  return { middleware, start() {}, stop() {} }
}

/** Start-up lines saying which edge features are on, with their limits. */
export function describeEdge(config: EdgeConfig): string[] {
  if (!config.enabled) return ['hardened edge: off (set RELAYER_HARDENED=1 to enable)']
  return [`hardened edge: on`]
}
