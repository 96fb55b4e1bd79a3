import type { SharedRedis } from './sharedRedis.ts'

/** One `field:value` of an INFO answer. */
const infoField = (info: string, field: string) => info.match(new RegExp(`^${field}:(.*)$`, 'm'))?.[1]?.trim()

/**
 * What the relayer needs of its Redis (docs/scaling.md, "Redis settings"), read at
 * start from `INFO memory` and `INFO persistence` (allowed where `CONFIG` is not, as on
 * managed Redis): the warnings to log, none when it is set as it should be.
 * - `maxmemory-policy noeviction`: any other policy may drop a claim or an outcome
 *   under memory pressure (every key of the relayer has an expiry, so `volatile-*`
 *   policies pick them too); the loss is found and the replicas stop to re-publish,
 *   but orders are refused meanwhile.
 * - persistence (`appendonly yes`): without it a restart empties Redis, and every
 *   replica refuses new orders for the restore window.
 */
export async function checkRedisSettings(redis: SharedRedis): Promise<string[]> {
  const warnings: string[] = []
  const memory = await redis.attempt('reading INFO memory', 'settings', (client) => client.send('INFO', ['memory']) as Promise<string>)
  const policy = memory.ok ? infoField(String(memory.value), 'maxmemory_policy') : undefined
  if (policy === undefined) {
    warnings.push('cannot read the Redis eviction policy (INFO memory): make sure it is maxmemory-policy noeviction, or claims and outcomes may be evicted')
  } else if (policy !== 'noeviction') {
    const limit = memory.ok ? infoField(String(memory.value), 'maxmemory') : undefined
    warnings.push(
      `Redis evicts keys under memory pressure (maxmemory-policy ${policy}${limit === '0' ? ', no maxmemory set yet' : ''}): set maxmemory-policy noeviction, or an evicted claim or outcome stops every replica from taking new orders while they re-publish`,
    )
  }
  const persistence = await redis.attempt('reading INFO persistence', 'settings', (client) => client.send('INFO', ['persistence']) as Promise<string>)
  if (persistence.ok && infoField(String(persistence.value), 'aof_enabled') === '0') {
    warnings.push('Redis keeps no append-only file (appendonly no): a restart brings it back without the replicas\' claims and outcomes, and every replica then refuses new orders for RELAYER_REDIS_RESTORE_MS while they re-publish; set appendonly yes')
  }
  return warnings
}
