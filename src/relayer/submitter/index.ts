export { errorText } from './errorText.ts'
export { createSubmitter, type Submitter, type SubmitterOptions } from './submitter.ts'
export { createGasLimitCache } from './gasLimitCache.ts'
export { createSerialQueue } from './serialQueue.ts'
