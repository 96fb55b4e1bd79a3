import { checkRedisSettings, createSharedRedis } from '../relayer/replicas/index.ts'
import { redactUrl, silentLogger } from '../shared/index.ts'
import { type CheckResult, fail, failFromMessage, pass } from './checkResult.ts'

const noHealth = { up() {}, error() {} }

/** One of checkRedisSettings' warnings as a failure: what is set and why it matters, then the one setting to change. */
function settingFailure(warning: string): CheckResult {
  const detail = warning.replace(/[;:] set (appendonly yes|maxmemory-policy noeviction)\b.*$/, '')
  return /appendonly/.test(warning)
    ? fail('redis settings', detail, 'set appendonly yes (in redis.conf, or CONFIG SET appendonly yes) so a restart keeps the shared state (docs/scaling.md)')
    : fail('redis settings', detail, 'set maxmemory-policy noeviction (in redis.conf, or CONFIG SET maxmemory-policy noeviction) (docs/scaling.md)')
}

/**
 * RELAYER_REDIS_URL answers (connected as a replica connects, sharedRedis.ts), and has the
 * settings replicas need (checkRedisSettings.ts: maxmemory-policy noeviction, appendonly
 * yes), one failure per setting that is not so. Reads only; the URL is shown without its
 * password.
 */
export async function checkRedis(url: string): Promise<CheckResult[]> {
  const redis = createSharedRedis(url, { logger: silentLogger, health: noHealth, prefix: 'order-relay-check' })
  try {
    await redis.connect()
  } catch (error) {
    return [failFromMessage('redis', (error as Error).message, 'check the URL and its password, start Redis or Valkey there, or unset RELAYER_REDIS_URL to run a single relayer')]
  }
  try {
    const reached = pass('redis', `RELAYER_REDIS_URL ${redactUrl(url)} answers`)
    const warnings = await checkRedisSettings(redis)
    if (warnings.length === 0) return [reached, pass('redis settings', 'maxmemory-policy noeviction and appendonly yes, as replicas need (docs/scaling.md)')]
    return [reached, ...warnings.map(settingFailure)]
  } finally {
    redis.close()
  }
}
