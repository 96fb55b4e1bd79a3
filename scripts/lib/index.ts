// Fixtures shared by the tests and the bench, which import them from here: neither
// imports the other's files (test/docs/imports.test.ts).
export { postgresBin, postgresMissing, startPostgres, type TestPostgres } from './postgresServer.ts'
export { hasRedisServer, redisServerPath, startRedis, type TestRedis } from './redisServer.ts'
export { signedTx } from './signedTx.ts'
export { type SignerDouble, type SignerDoubleMode, signerDouble } from './signerDouble.ts'
