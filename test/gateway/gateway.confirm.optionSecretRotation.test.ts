import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from '../../server/src/db/connect.js';
import { hashKey } from '../../server/src/accounts/keys.js';
import { hostedCheckoutAppId, hostedCheckoutApps } from '../../server/src/hostedCheckout/appIds.js';
import { revokeKey, findActiveKeyByHash } from '../../server/src/db/queries/accounts.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { expectError, expectJson } from './harness.js';
import { signAction, startCheckoutHarness, type CheckoutHarness, type StatusAnswer } from './checkout.js';

/**
 * Rotating PAYGATE_OPTION_SECRET (docs/decisions.md §29.15): the new secret signs, the retired one, listed in
 * PAYGATE_OPTION_SECRET_PREVIOUS, still verifies, so an option a wallet listed just before the rotation confirms on
 * a process started after it. The two harnesses share one database, as an old and a new process of one deployment do.
 */
describe('gateway confirm: an option secret rotation', () => {
  useChainSnapshots();
  const oldSecret = randomBytes(32).toString('base64');
  const newSecret = randomBytes(32).toString('base64');
  let db: Database;
  let before: CheckoutHarness;
  let after: CheckoutHarness;
  let forgotten: CheckoutHarness;
  beforeEach(async () => {
    db = openDatabase('sqlite::memory:');
    before = await startCheckoutHarness({ db, config: { PAYGATE_OPTION_SECRET: oldSecret } });
    after = await startCheckoutHarness({
      db,
      config: { PAYGATE_OPTION_SECRET: newSecret, PAYGATE_OPTION_SECRET_PREVIOUS: oldSecret },
    });
    forgotten = await startCheckoutHarness({ db, config: { PAYGATE_OPTION_SECRET: newSecret } });
  });
  afterEach(async () => {
    await before.close();
    await after.close();
    await forgotten.close();
    await db.close();
  });

  it('confirms an option listed before the rotation on a process started after it', async () => {
    const buyer = await before.buyer();
    const paymentId = await before.createPayment();
    const option = await before.optionFor(paymentId, buyer, before.tusd);
    const signature = await signAction(buyer, option);
    const confirmed = await expectJson<StatusAnswer>(
      await after.confirm(paymentId, { optionId: option.id, results: [signature] }),
      200,
    );
    assert.equal(confirmed.status, 'processing');
  });

  it('refuses that option once the old secret is no longer listed (params_validation), leaving the payment payable', async () => {
    const buyer = await before.buyer();
    const paymentId = await before.createPayment();
    const option = await before.optionFor(paymentId, buyer, before.tusd);
    const signature = await signAction(buyer, option);
    await expectError(
      await forgotten.confirm(paymentId, { optionId: option.id, results: [signature] }),
      400,
      'params_validation',
    );
    const status = await expectJson<StatusAnswer>(
      await forgotten.call('GET', `/v1/gateway/payment/${paymentId}/status`),
      200,
    );
    assert.equal(status.status, 'requires_action');
    // The new process's own options confirm.
    const fresh = await forgotten.optionFor(paymentId, buyer, forgotten.tusd);
    const signed = await signAction(buyer, fresh);
    const confirmed = await expectJson<StatusAnswer>(
      await forgotten.confirm(paymentId, { optionId: fresh.id, results: [signed] }),
      200,
    );
    assert.equal(confirmed.status, 'processing');
  });

  it('keeps the hosted checkout off after a rotation when its old app id was revoked', async () => {
    const oldKey = Buffer.from(oldSecret, 'base64');
    const newKey = Buffer.from(newSecret, 'base64');
    const revoked: string[] = [];
    const apps = (secret: Buffer, previous: Buffer[]) =>
      hostedCheckoutApps({
        db,
        optionSecret: secret,
        previousOptionSecrets: previous,
        now: () => Date.now(),
        onRevoked: (mode) => revoked.push(mode),
      });
    const oldId = await apps(oldKey, []).appIdFor('test');
    assert.equal(oldId, hostedCheckoutAppId(oldKey, 'test'));
    // Not revoked: the rotation gives a new app id and the old one stays valid for pages loaded before it.
    const newId = await apps(newKey, [oldKey]).appIdFor('test');
    assert.equal(newId, hostedCheckoutAppId(newKey, 'test'));
    assert.ok(await findActiveKeyByHash(db.knex, hashKey(oldId!)));

    // Revoked before the rotation: the new secret's app id is not created, the checkout stays off.
    const liveOld = await apps(oldKey, []).appIdFor('live');
    const row = await findActiveKeyByHash(db.knex, hashKey(liveOld!));
    assert.ok(row && (await revokeKey(db.knex, row.id, Date.now())));
    assert.equal(await apps(newKey, [oldKey]).appIdFor('live'), null);
    assert.deepEqual(revoked, ['live']);
    assert.equal(await findActiveKeyByHash(db.knex, hashKey(hostedCheckoutAppId(newKey, 'live'))), null);
  });
});
