/**
 * The team tests' world: a runtime over a test database (SQLite or PostgreSQL) with an injected clock, a merchant,
 * and users made with a cheap scrypt cost (2^10 instead of 2^17), so accepting with a password takes milliseconds.
 */
import type { Runtime, RuntimeOptions } from '@paygate/server';
import { createMerchant, createPartner } from '../../server/src/accounts/index.js';
import { insertMembership, type MemberRole } from '../../server/src/db/queries/teamRows.js';
import { createUser } from '../../server/src/users/userAccounts.js';
import type { TestDatabase } from '../helpers/db.js';
import { testClock, testRuntime, type TestClock } from '../helpers/runtime.js';

export const CHEAP_COST = 10;
export const PASSWORD = 'correct horse battery staple';

export interface TeamWorld {
  runtime: Runtime;
  clock: TestClock;
  /** A new merchant of a new partner, named `name`. */
  merchant(name?: string): Promise<string>;
  /** A new user with PASSWORD (or `password`), member of `merchantId` with `role` when given. */
  user(email: string, member?: { merchantId: string; role: MemberRole }, password?: string): Promise<string>;
  close(): Promise<void>;
}

let emails = 0;
/** A fresh address per call, so tests of one file never collide on the unique email hash. */
export function uniqueEmail(name = 'person'): string {
  emails += 1;
  return `${name}.${emails}.${Date.now().toString(36)}@example.com`;
}

export async function teamWorld(
  database: TestDatabase,
  options: { signInGate?: RuntimeOptions['signInGate'] } = {},
): Promise<TeamWorld> {
  const clock = testClock();
  const runtime = await testRuntime({ db: database.db, clock, signInGate: options.signInGate });
  const deps = { db: database.db, now: clock.now };
  return {
    runtime,
    clock,
    async merchant(name = 'Acme Coffee') {
      const partner = await createPartner(deps, { name: `${name} partner` });
      return (await createMerchant(deps, { partnerId: partner.id, name })).id;
    },
    async user(email, member, password = PASSWORD) {
      const { id } = await createUser(runtime, { email, password });
      if (member) {
        await insertMembership(database.db.knex, {
          user_id: id,
          merchant_id: member.merchantId,
          role: member.role,
          created_at: clock.now(),
        });
      }
      return id;
    },
    close: () => runtime.close(),
  };
}

/** Every text cell of the given tables, for "nothing secret is stored in clear" checks. */
export async function allCells(runtime: Runtime, tables: string[]): Promise<string> {
  const parts: string[] = [];
  for (const table of tables) {
    const rows = (await runtime.db.knex(table).select('*')) as Record<string, unknown>[];
    for (const row of rows) parts.push(JSON.stringify(row));
  }
  return parts.join('\n');
}
