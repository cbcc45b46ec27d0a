/**
 * The deposit seed's fingerprint (docs/decisions.md §22.15). Every deposit address a database records derives from
 * the seed it was first started with; a process started with another seed would show buyers newly derived addresses
 * nothing watches and sign sweeps with keys that hold nothing. So the database keeps the EVM collection address
 * (`m/44'/60'/0'/0/0`) of its seed, written on the first start with a seed, and a start with a seed whose collection
 * address differs is refused. The address is public and names the seed without revealing it (the seed is never
 * stored). It is derived without any chain configured, so the check holds whatever PAYGATE_CHAINS says.
 */
import { depositSeedFingerprint } from '../chains/adapters.js';
import type { Database } from '../db/connect.js';
import { sumLedger } from '../db/queries/ledgerEntries.js';
import { insertSettingOnce, readSetting, writeSetting } from '../db/queries/settings.js';
import { seedOf } from './seed.js';

export const SEED_SETTING = 'deposit_seed_collection';

/** The public fingerprint of a mnemonic: the EVM collection address it derives. */
export function seedFingerprint(mnemonic: string): string {
  return depositSeedFingerprint(seedOf(mnemonic));
}

export class DepositSeedChangedError extends Error {
  constructor(
    readonly stored: string,
    readonly configured: string,
  ) {
    super(
      `PAYGATE_DEPOSIT_SEED is not the deposit seed this database was started with: the database's deposit addresses ` +
        `derive from the seed whose collection account (m/44'/60'/0'/0/0) is ${stored}, the configured seed's is ` +
        `${configured}. Starting would show buyers deposit addresses nothing watches and sign sweeps with keys that ` +
        `hold nothing, so the start is refused. Restore the previous seed (PAYGATE_DEPOSIT_SEED or ` +
        `PAYGATE_DEPOSIT_SEED_FILE). To rotate the seed on purpose, follow docs/decisions.md §22.0 (let every deposit ` +
        `and the collection account of the old seed be swept and paid out first), then run ` +
        `"paygate admin accept-deposit-seed" with the new seed configured.`,
    );
    this.name = 'DepositSeedChangedError';
  }
}

/**
 * Records the seed's fingerprint on first use and refuses a different one afterwards. Two processes starting at
 * once with different seeds on an empty database: the first insert wins, the other is refused. A database that
 * already held deposit addresses before migration 013 takes the seed of its first start after it as its own.
 */
export async function checkDepositSeed(db: Database, mnemonic: string, now: number): Promise<void> {
  // A runtime told not to migrate, on a schema from before migration 013: /readyz refuses it (`migrations`), and
  // the first start after `paygate migrate` checks.
  if (!(await db.knex.schema.hasTable('settings'))) return;
  const configured = seedFingerprint(mnemonic);
  await insertSettingOnce(db.knex, SEED_SETTING, configured, now);
  const stored = await readSetting(db.knex, SEED_SETTING);
  if (stored !== configured) throw new DepositSeedChangedError(stored ?? '(none)', configured);
}

/**
 * What the ledger says still depends on the stored seed's keys (§22.0's rotation: drain first): open payments with
 * deposit addresses, and money at a deposit address or the collection account. Empty when a rotation loses nothing
 * the ledger knows of; the chain itself is reconciliation's to confirm.
 */
export async function rotationBlockers(db: Database): Promise<string[]> {
  const knex = db.knex;
  const open = (await knex('payments')
    .join('deposit_addresses', 'deposit_addresses.payment_id', 'payments.id')
    .whereIn('payments.status', ['requires_action', 'processing'])
    .countDistinct({ n: 'payments.id' })
    .first()) as { n: number | string } | undefined;
  const blockers: string[] = [];
  if (Number(open?.n ?? 0) > 0) blockers.push(`${open!.n} open payment(s) with deposit addresses`);
  const sums = await sumLedger(knex, {
    mode: 'collected',
    kinds: ['received', 'swept', 'paid_out', 'fee_paid', 'refunded', 'refund_released'],
  });
  const held = new Map<string, bigint>();
  const add = (key: string, amount: bigint) => held.set(key, (held.get(key) ?? 0n) + amount);
  for (const s of sums) {
    const deposit = `deposit ${s.address} (${s.asset})`;
    const collection = `the collection account on ${s.chain} (${s.asset})`;
    if (s.kind === 'received') add(deposit, s.amount);
    if (s.kind === 'swept') {
      add(deposit, -s.amount);
      add(collection, s.amount);
    }
    if (s.kind === 'paid_out' || s.kind === 'fee_paid' || s.kind === 'refunded') add(collection, -s.amount);
    if (s.kind === 'refund_released') add(collection, s.amount);
  }
  for (const [where, amount] of held) if (amount !== 0n) blockers.push(`${amount} minor units at ${where}`);
  return blockers;
}

export class RotationRefusedError extends Error {
  constructor(readonly blockers: string[]) {
    super(
      `The stored deposit seed still holds money or open payments: ${blockers.join('; ')}. Let them be swept, paid ` +
        `out or refunded under the old seed first (docs/decisions.md §22.0), or pass --force to accept the new seed ` +
        `anyway (what the old seed holds must then be moved by hand with its words).`,
    );
    this.name = 'RotationRefusedError';
  }
}

/**
 * The operator's acknowledgement of a rotation: the configured seed becomes the database's. Refused while the ledger
 * says the old seed still holds something, unless forced.
 */
export async function acceptDepositSeed(
  db: Database,
  mnemonic: string,
  now: number,
  options: { force?: boolean } = {},
): Promise<{ previous: string | null; current: string; changed: boolean }> {
  const current = seedFingerprint(mnemonic);
  const previous = await readSetting(db.knex, SEED_SETTING);
  if (previous === current) return { previous, current, changed: false };
  if (previous !== null && !options.force) {
    const blockers = await rotationBlockers(db);
    if (blockers.length > 0) throw new RotationRefusedError(blockers);
  }
  await writeSetting(db.knex, SEED_SETTING, current, now);
  return { previous, current, changed: true };
}
