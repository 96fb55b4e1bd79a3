// `order-relay check`: the preflight of a relayer's and an indexer's configuration against the chain, one check per file.
export { type CheckReport, CheckReportSchema, type CheckResult, CheckResultSchema } from './checkResult.ts'
export { formatReport } from './format.ts'
export { type GasKey, gasKeyAddress } from './gasKey.ts'
export { surfacesFrom, type Surfaces } from './readTargets.ts'
export { type PreflightOptions, runPreflight } from './runPreflight.ts'
