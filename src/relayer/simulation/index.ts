export { BatchedRevertError, createPendingSimulator, type PendingSimulator, type PendingSimulatorOptions, type Simulation } from './pendingSimulator.ts'
export type { Fees } from './batchCall.ts'
