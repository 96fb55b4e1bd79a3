// The deterministic simulator of the relayer's money path (docs/testing.md): the real
// submitter in virtual time against a simulated node, one seed deciding every order and fault.
export { type Plan, type PlannedFault, type PlannedOrder, planFor } from './plan.ts'
export { type SeedFailure, type SeedsReport, runSeeds } from './runSeeds.ts'
export { runPlan, type RunResult } from './world.ts'
export type { Answer, Violation } from './invariants.ts'
