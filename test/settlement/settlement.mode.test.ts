/**
 * The settlement mode (accounts/settlementMode.ts): `collected` only where it can work (a deposit seed, a payout
 * address), and each payment keeps the mode its merchant had when it was created (payments.settlement_mode, written
 * by the create statement itself, which differs between the databases).
 */
import assert from 'node:assert/strict';
import { createMerchant, updateMerchantSettings } from '../../server/src/accounts/merchants.js';
import { findPayment, settlementModeOfPayment } from '../../server/src/db/queries/payments.js';
import { ApiError } from '../../server/src/errors.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { settlementModeOf } from '../../server/src/settlement/modes.js';
import type { Runtime } from '@paygate/server';
import { describeEachDatabase } from '../helpers/db.js';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { testRuntime } from '../helpers/runtime.js';

const BASE = 'eip155:8453';
const ADDRESS = '0x912b989d6400706ac06214fa636a16a9801fcd46';
const seeded = { depositSeed: true };

function refusedOnMode(err: unknown, message: RegExp): boolean {
  assert.ok(err instanceof ApiError);
  assert.equal(err.code, 'params_validation');
  assert.equal(err.param, 'settlementMode');
  assert.match(err.message, message);
  return true;
}

describeEachDatabase('settlement.mode', (get) => {
  let runtime: Runtime;
  before(async () => {
    runtime = await testRuntime({ db: get().db });
  });
  after(() => runtime.close());

  const newPayment = (merchantId: string) =>
    createPayment(runtime, {
      merchantId,
      live: true,
      referenceId: 'order_1',
      amount: { unit: 'iso4217/USD', value: '1250' },
      expiresAt: runtime.now() + 3_600_000,
      successUrl: null,
      errorUrl: null,
    });

  it('a payment keeps the settlement mode its merchant had when it was created', async () => {
    const { merchantId } = await createMerchantAccount(runtime, { settlementAddresses: { [BASE]: ADDRESS } });
    const before = await newPayment(merchantId);
    const settings = await updateMerchantSettings(runtime, merchantId, { settlementMode: 'collected' }, seeded);
    assert.equal(settings.settlementMode, 'collected');
    // Created together, so on PostgreSQL they share one group-committed insert statement.
    const [after1, after2] = await Promise.all([newPayment(merchantId), newPayment(merchantId)]);
    await updateMerchantSettings(runtime, merchantId, { settlementMode: 'direct' }, seeded);
    const last = await newPayment(merchantId);

    const knex = get().db.knex;
    assert.equal(await settlementModeOfPayment(knex, before.id), 'direct');
    assert.equal(await settlementModeOfPayment(knex, after1!.id), 'collected');
    assert.equal(await settlementModeOfPayment(knex, after2!.id), 'collected');
    assert.equal(await settlementModeOfPayment(knex, last.id), 'direct');
  });

  it("a read payment carries its own settlement mode, and the mode's lookup answers it without reading the table again", async () => {
    const { merchantId } = await createMerchantAccount(runtime, { settlementAddresses: { [BASE]: ADDRESS } });
    await updateMerchantSettings(runtime, merchantId, { settlementMode: 'collected' }, seeded);
    const created = await newPayment(merchantId);
    await updateMerchantSettings(runtime, merchantId, { settlementMode: 'direct' }, seeded);
    const knex = get().db.knex;
    const row = await findPayment(knex, created.id);
    assert.equal(row!.settlement_mode, 'collected');

    const queries: string[] = [];
    const count = (q: { sql: string }) => queries.push(q.sql);
    knex.on('query', count);
    try {
      assert.equal((await settlementModeOf(knex, row!)).paidByDeposit, true);
      assert.deepEqual(queries, []);
      // The row a create answers is made before its insert: the mode is read by id then.
      assert.equal((await settlementModeOf(knex, created)).paidByDeposit, true);
      assert.equal(queries.length, 1);
    } finally {
      knex.off('query', count);
    }
  });

  it('collected is refused without a deposit seed, without a payout address, or by removing the last one', async () => {
    const { partnerId, merchantId } = await createMerchantAccount(runtime);
    await assert.rejects(
      updateMerchantSettings(runtime, merchantId, { settlementMode: 'collected' }, { depositSeed: false }),
      (err) => refusedOnMode(err, /PAYGATE_DEPOSIT_SEED/),
    );
    await assert.rejects(updateMerchantSettings(runtime, merchantId, { settlementMode: 'collected' }, seeded), (err) =>
      refusedOnMode(err, /settlement addresses/),
    );
    await assert.rejects(
      createMerchant(runtime, { partnerId, name: 'No seed', settlementMode: 'collected' }, undefined, {
        depositSeed: false,
      }),
      (err) => refusedOnMode(err, /PAYGATE_DEPOSIT_SEED/),
    );
    const collected = await createMerchant(
      runtime,
      { partnerId, name: 'Collected', settlementMode: 'collected', settlementAddresses: { [BASE]: ADDRESS } },
      undefined,
      seeded,
    );
    assert.equal(collected.settlement_mode, 'collected');
    await assert.rejects(updateMerchantSettings(runtime, collected.id, { settlementAddresses: {} }, seeded), (err) =>
      refusedOnMode(err, /settlement addresses/),
    );
    // Back to direct, an empty map is fine again.
    const direct = await updateMerchantSettings(
      runtime,
      collected.id,
      { settlementMode: 'direct', settlementAddresses: {} },
      seeded,
    );
    assert.deepEqual([direct.settlementMode, direct.settlementAddresses], ['direct', {}]);
  });
});
