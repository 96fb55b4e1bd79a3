import type { TrustedProxies } from './trustedProxies.ts'

/** Hardened-edge settings (SPEC.md 4.5); `enabled` is false unless asked for. */
export type EdgeConfig = {
  enabled: boolean
  ratePerSec: number
  rateBurst: number
  maxInflight: number
  gasFloorWei: bigint
  corsOrigins: string[]
  trustProxy: boolean
  /** With `trustProxy`: which X-Forwarded-For hops are the operator's proxies (RELAYER_TRUSTED_PROXIES). */
  trustedProxies: TrustedProxies
  /** How often the gas breaker polls the relayer's balance. */
  balancePollMs: number
}
