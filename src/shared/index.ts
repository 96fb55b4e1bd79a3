export { createLogger, createMemoryLogger, silentLogger, type Logger, type LogSink } from './logger.ts'
export { ConfigError, createEnvReader, type Env } from './env.ts'
export { freePort } from './freePort.ts'
export { listenUrl } from './listenUrl.ts'
