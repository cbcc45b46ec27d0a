export { openDatabase, type Database, type Dialect } from './connect.js';
export { migrateDatabase, migrationsCurrent } from './migrate.js';
