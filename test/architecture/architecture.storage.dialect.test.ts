/**
 * Storage differences live in server/src/db/ only (ARCHITECTURE.md): outside it, code asks db/ for a query or a
 * capability (`isEmbedded`, `inRelayerTurn`, `queueDepth`, `isUniqueViolation`, …) and never tells SQLite and
 * PostgreSQL apart itself.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const serverSrc = new URL('../../server/src/', import.meta.url).pathname;
/** db/ is where the differences belong; generated/ is written from the contracts. */
const allowed = ['db/', 'generated/'];

// A dialect or driver name as a whole quoted string: 'pg', "postgres", `sqlite`, 'better-sqlite3'… Not a path such
// as './sqlite.js' (an import of the engine db/ chose), nor prose that merely mentions a database.
const NAME = String.raw`['"\x60](?:pg|postgres|postgresql|sqlite|sqlite3|better-sqlite3)['"\x60]`;

/** Each pattern is one way code has told the databases apart; comments are removed before matching. */
const patterns: { what: string; regex: RegExp }[] = [
  { what: 'reads the Database’s dialect', regex: /\.dialect\b/ },
  { what: 'calls db/’s own dialect predicate (ask for a capability instead)', regex: /\bdialectOf\b/ },
  { what: 'reads knex’s client name', regex: /\bconfig\.client\b/ },
  {
    what: 'compares with a dialect or driver name',
    regex: new RegExp(String.raw`[!=]==?\s*${NAME}|${NAME}\s*[!=]==?`),
  },
  { what: 'switches on a dialect or driver name', regex: new RegExp(String.raw`\bcase\s+${NAME}`) },
  { what: 'imports a database driver', regex: /\bfrom\s+(['"])(?:pg|better-sqlite3)\1/ },
  {
    what: 'tests a DATABASE_URL scheme',
    regex: /(?:startsWith|includes|match|test)\(\s*(['"`])(?:postgres|sqlite)|\/\^\(?(?:postgres|sqlite)/,
  },
  { what: 'reads a driver’s error code', regex: /\bSQLITE_[A-Z_]+|(['"])(?:23505|23503|23502|40001|40P01|55P03)\1/ },
];

/** The code of a line, without a whole-line comment or a trailing `// …` (prose may name the databases). */
function codeOf(line: string): string {
  const trimmed = line.trim();
  if (trimmed.startsWith('//') || trimmed.startsWith('*') || trimmed.startsWith('/*')) return '';
  return line.replace(/\s\/\/\s.*$/, '');
}

function violations(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    const code = codeOf(line);
    for (const { what, regex } of patterns) if (regex.test(code)) found.push(`${i + 1}: ${what}: ${line.trim()}`);
  });
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('architecture.storage.dialect', () => {
  it('the patterns catch each way a dialect branch has been written, and not what may stay', () => {
    const branches = [
      "if (db.dialect === 'postgres') await migrate();",
      "const concurrency = deps.db.dialect === 'postgres' ? 2 : 1;",
      "if (trx.client.config.client === 'pg') query = query.forUpdate();",
      "const fast = 'pg' !== kind;",
      "case 'sqlite':",
      'if (!/^postgres(ql)?:/.test(config.databaseUrl)) {',
      "if (raw.startsWith('sqlite:')) {",
      "import pg from 'pg';",
      "return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';",
      'const d = dialectOf(db);',
    ];
    for (const line of branches) assert.equal(violations(line).length > 0, true, line);
    const allowedLines = [
      'const concurrency = isEmbedded(deps.db) ? 1 : 2;',
      "import { createSqliteQueue } from './sqlite.js';",
      "import { createPostgresQueue } from './postgres.js';",
      "throw new Error('paygate worker needs PostgreSQL (DATABASE_URL=postgres://…); with SQLite, paygate start runs');",
      "    type: 'secret: `postgres://…` or `sqlite:<path>`',",
      '  // Row locks exist only on PostgreSQL; SQLite serialises writers.',
      " * SQLite has no data-modifying CTEs, so db.dialect === 'sqlite' takes the plain path.",
      'const x = await queueDepth(db, now); // on SQLite, our jobs table',
    ];
    for (const line of allowedLines) assert.deepEqual(violations(line), [], line);
  });

  it('no module of server/src outside db/ branches on SQLite or PostgreSQL', () => {
    const found = sourceFiles(serverSrc)
      .map((path) => relative(serverSrc, path))
      .filter((path) => !allowed.some((prefix) => path.startsWith(prefix)))
      .flatMap((path) => violations(readFileSync(join(serverSrc, path), 'utf8')).map((v) => `${path}:${v}`));
    assert.deepEqual(found, []);
  });
});
