/**
 * Collected data at rest, on SQLite and PostgreSQL: sealed with the SecretBox and bound to its payment, one row per
 * payment (a later answer replaces the earlier), readable back only with the key.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { hasCollectedData, readCollectedData, saveCollectedData } from '../../server/src/collect/index.js';
import { SecretBox } from '../../server/src/crypto/secretBox.js';
import { findCollectedData } from '../../server/src/db/queries/collectedData.js';
import { insertPayments } from '../../server/src/db/queries/payments.js';
import { describeEachDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';

const data = {
  fullName: 'Grace Hopper',
  dob: '1906-12-09',
  pobCountry: 'US',
  pobAddress: 'New York, NY',
  tosConfirmed: true,
} as const;

describeEachDatabase('collect.store', (get) => {
  const secretBox = new SecretBox([{ id: 'k1', key: randomBytes(32) }]);
  let clock = 1_000;
  const deps = () => ({ db: get().db, secretBox, now: () => clock });

  async function payment(id: string): Promise<string> {
    await insertPayments(get().db.knex, [
      {
        id,
        merchant_id: 'mer_collectstore00001',
        live: false,
        status: 'requires_action',
        state_version: 0,
        reference_id: 'order',
        amount_unit: 'iso4217/USD',
        amount_value: '100000',
        success_url: null,
        error_url: null,
        created_at: 0,
        expires_at: 3_600_000,
        updated_at: 0,
      },
    ]);
    return id;
  }

  before(async () => {
    await seedMerchant(get().db.knex, 'mer_collectstore00001');
  });

  it('saves sealed, reads back, and a second save replaces the first', async () => {
    const id = await payment('pay_collectstore000000000001');
    assert.equal(await hasCollectedData(get().db.knex, id), false);
    assert.equal(await readCollectedData(deps(), id), null);

    await saveCollectedData(deps(), id, data);
    const row = await findCollectedData(get().db.knex, id);
    assert.ok(row);
    assert.equal(row.created_at, 1_000);
    assert.match(row.sealed, /^v1\.k1\./);
    assert.ok(!row.sealed.includes('Grace') && !row.sealed.includes('1906'));
    assert.equal(await hasCollectedData(get().db.knex, id), true);
    assert.deepEqual(await readCollectedData(deps(), id), data);

    clock = 2_000;
    const corrected = { ...data, fullName: 'Grace Brewster Hopper' };
    await saveCollectedData(deps(), id, corrected);
    assert.deepEqual(await readCollectedData(deps(), id), corrected);
    assert.equal((await findCollectedData(get().db.knex, id))?.created_at, 2_000);
    const rows = await get().db.knex('collected_data').where({ payment_id: id });
    assert.equal(rows.length, 1);
  });

  it('answers inside a transaction, and refuses a row moved to another payment or read with another key', async () => {
    const first = await payment('pay_collectstore000000000002');
    const second = await payment('pay_collectstore000000000003');
    await saveCollectedData(deps(), first, data);
    await get().db.knex.transaction(async (trx) => {
      assert.equal(await hasCollectedData(trx, first), true);
      assert.equal(await hasCollectedData(trx, second), false);
    });

    const sealed = (await findCollectedData(get().db.knex, first))!.sealed;
    await get().db.knex('collected_data').insert({ payment_id: second, sealed, created_at: 0 });
    await assert.rejects(readCollectedData(deps(), second));

    const otherKey = new SecretBox([{ id: 'k1', key: randomBytes(32) }]);
    await assert.rejects(readCollectedData({ db: get().db, secretBox: otherKey }, first));
  });
});
