export { indexerPage } from './indexerPage.ts'
export { relayerPage } from './relayerPage.ts'
