import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import {
  createKey,
  createMerchant,
  createPartner,
  DEMO_FEE_CONFIG,
  hashKey,
  revokeKey,
  type AccountsDeps,
} from '../../server/src/accounts/index.js';
import { findActiveKeyWithMerchant, findMerchant } from '../../server/src/db/queries/accounts.js';
import { describeEachDatabase } from '../helpers/db.js';
import { testClock } from '../helpers/runtime.js';

const EVM = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describeEachDatabase('accounts.keyWithMerchant', (get) => {
  const clock = testClock();
  let deps: AccountsDeps;
  let partnerId: string;
  let merchantId: string;

  before(async () => {
    deps = { db: get().db, now: clock.now };
    partnerId = (await createPartner(deps, { name: 'Join partner' })).id;
    merchantId = (
      await createMerchant(deps, {
        partnerId,
        name: 'Join merchant',
        feeConfig: DEMO_FEE_CONFIG,
        settlementAddresses: { 'eip155:31337': EVM },
        collectData: true,
      })
    ).id;
  });

  it('reads the active key and the named merchant as their own queries read them', async () => {
    const created = await createKey(deps, { kind: 'merchant', mode: 'live', partnerId, label: 'joined' });
    const found = await findActiveKeyWithMerchant(get().db.knex, hashKey(created.secret), merchantId);
    assert.deepEqual(found?.key, { ...created.key, hash: hashKey(created.secret) });
    assert.deepEqual(found?.merchant, await findMerchant(get().db.knex, merchantId));
    assert.equal(found?.merchant?.collect_data, true);
  });

  it('answers the key with no merchant for an unknown merchant id, and another partner’s merchant as it is', async () => {
    const created = await createKey(deps, { kind: 'merchant', mode: 'test', partnerId });
    const unknown = await findActiveKeyWithMerchant(get().db.knex, hashKey(created.secret), 'mer_doesnotexist000');
    assert.equal(unknown?.key.id, created.key.id);
    assert.equal(unknown?.merchant, null);

    const other = await createPartner(deps, { name: 'Other partner' });
    const foreign = await createMerchant(deps, { partnerId: other.id, name: 'Foreign merchant' });
    const found = await findActiveKeyWithMerchant(get().db.knex, hashKey(created.secret), foreign.id);
    assert.equal(found?.merchant?.partner_id, other.id, 'the caller compares the partners');
  });

  it('reads through the connection of a transaction it is given', async () => {
    const created = await createKey(deps, { kind: 'merchant', mode: 'test', partnerId });
    await get()
      .db.knex.transaction(async (trx) => {
        await trx('api_keys').where({ id: created.key.id }).update({ revoked_at: clock.now() });
        assert.equal(await findActiveKeyWithMerchant(trx, hashKey(created.secret), merchantId), null);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    assert.equal(
      (await findActiveKeyWithMerchant(get().db.knex, hashKey(created.secret), merchantId))?.key.id,
      created.key.id,
    );
  });

  it('refuses a transaction that has finished, whose connection may be lent to another by now', async () => {
    const created = await createKey(deps, { kind: 'merchant', mode: 'test', partnerId });
    let finished: Knex.Transaction | undefined;
    await get().db.knex.transaction(async (trx) => {
      finished = trx;
    });
    await assert.rejects(
      findActiveKeyWithMerchant(finished!, hashKey(created.secret), merchantId),
      /transaction is already complete/,
    );
  });

  it('answers nothing for an unknown or revoked key', async () => {
    assert.equal(await findActiveKeyWithMerchant(get().db.knex, hashKey('sk_test_unknown'), merchantId), null);
    const doomed = await createKey(deps, { kind: 'merchant', mode: 'test', partnerId });
    await revokeKey(deps, doomed.key.id);
    assert.equal(await findActiveKeyWithMerchant(get().db.knex, hashKey(doomed.secret), merchantId), null);
  });
});
