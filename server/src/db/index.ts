export { openDatabase, type Database } from './connect.js';
export { type Dialect } from './dialect.js';
export { migrateDatabase, migrationsCurrent } from './migrate.js';
