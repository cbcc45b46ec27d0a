export { createApp, type AppDeps } from './app.js';
export { loadConfig, ConfigError, withDevelopmentSecrets, variables, type Config } from './config.js';
export { ApiError, statusByCode, type ErrorCode } from './errors.js';
export { listenMetrics, startServer, type RunningServer } from './server.js';
export { openDatabase, migrateDatabase, migrationsCurrent, type Database, type Dialect } from './db/index.js';
export { createRuntime, type Runtime, type RuntimeOptions } from './runtime.js';
export { createLogger } from './observability/logger.js';
export { observeRpc, silentObserver, type Observer } from './observability/observer.js';
export { runReadiness, type ReadinessCheck } from './observability/readiness.js';
