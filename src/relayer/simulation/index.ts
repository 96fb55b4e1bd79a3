export { BatchedRevertError, createPendingSimulator, type PendingSimulator, type PendingSimulatorOptions } from './pendingSimulator.ts'
export type { Fees } from './batchCall.ts'
export { minimumGasLimit } from './intrinsicGas.ts'
export { cannotPay } from './cannotPay.ts'
