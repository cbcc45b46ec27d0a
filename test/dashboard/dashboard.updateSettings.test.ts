import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/db.js';
import { listAudit } from '../../server/src/audit/auditLog.js';
import { createKey } from '../../server/src/accounts/index.js';
import { authenticateMerchant } from '../../server/src/http/merchantAuth.js';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';
import { pngLogo } from './logoFiles.js';
import { callAs, createPerson, sessionFor, type SignedIn } from './people.js';

const BASE = 'eip155:8453';
const ADDRESS = '0x912b989d6400706ac06214fa636a16a9801fcd46';

describeEachDatabase('dashboard.updateSettings', (get) => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard({ db: get().db });
    m = await d.merchant();
    // Settings changes are the owner's (OPERATION_ROLES): an owner's session, not an API key (a developer).
    const person = await createPerson(d.harness.runtime, { merchantId: m.account.merchantId, role: 'owner' });
    owner = await sessionFor(d.harness, person);
  });
  after(() => d.close());

  let owner: SignedIn;
  const update = (body: unknown) =>
    callAs(d.harness, owner, 'PATCH', '/v1/dashboard/settings', { body, merchantId: m.account.merchantId });
  const settings = async () => expectJson<Record<string, unknown>>(await m.call('GET', '/v1/dashboard/settings'), 200);

  it('updateSettings changes the fields sent and keeps the others', async () => {
    const answer = await expectJson(
      await update({
        name: '  Acme Shop ',
        iconUrl: null,
        settlementAddresses: { [BASE]: ADDRESS },
        collectData: true,
        requireTwoFactor: false,
      }),
      200,
    );
    const expected = {
      name: 'Acme Shop',
      iconUrl: null,
      settlementAddresses: { [BASE]: ADDRESS },
      collectData: true,
      requireTwoFactor: false,
      settlementMode: 'direct',
    };
    assert.deepEqual(answer, expected);
    assert.deepEqual(await settings(), expected);
    assert.deepEqual(await expectJson(await update({ iconUrl: null, settlementAddresses: {} }), 200), {
      ...expected,
      iconUrl: null,
      settlementAddresses: {},
    });
  });

  it('updateSettings names the field at fault in param and changes nothing', async () => {
    await expectJson(await update({ name: 'Before' }), 200);
    const cases: [unknown, string][] = [
      [{ name: '   ' }, 'name'],
      [{ name: 'a\u0001b' }, 'name'],
      [{ iconUrl: 'ftp://example.com/i.png' }, 'iconUrl'],
      // A remote logo was accepted and never shown (the checkout loads no other origin): a logo is uploaded now.
      [{ iconUrl: 'https://shop.example.com/icon.png' }, 'iconUrl'],
      [{ name: 'After', settlementAddresses: { [BASE]: '0xnothex' } }, `settlementAddresses.${BASE}`],
      [{ settlementAddresses: { 'cosmos:cosmoshub-4': 'cosmos1xyz' } }, 'settlementAddresses.cosmos:cosmoshub-4'],
      [{ settlementAddresses: { [BASE]: 5 } }, `settlementAddresses.${BASE}`],
      [{ colour: 'red' }, 'colour'],
      [{ collectData: 'yes' }, 'collectData'],
    ];
    for (const [body, param] of cases) {
      const res = await update(body);
      await expectError(res.clone(), 400, 'params_validation');
      assert.equal(((await res.json()) as { param?: string }).param, param, JSON.stringify(body));
    }
    const empty = await update({});
    await expectError(empty.clone(), 400, 'params_validation');
    assert.equal('param' in ((await empty.json()) as object), false, 'an empty body is about no one field');
    assert.equal((await settings()).name, 'Before', 'all or nothing');
  });

  it('updateSettings settlementMode: collected with a payout address, refused without one, audited', async () => {
    await expectJson(await update({ settlementAddresses: {} }), 200);
    const refused = await update({ settlementMode: 'collected' });
    await expectError(refused.clone(), 400, 'params_validation');
    assert.equal(((await refused.json()) as { param?: string }).param, 'settlementMode');
    assert.equal((await settings()).settlementMode, 'direct');

    const answer = await expectJson<{ settlementMode: string }>(
      await update({ settlementMode: 'collected', settlementAddresses: { [BASE]: ADDRESS } }),
      200,
    );
    assert.equal(answer.settlementMode, 'collected');
    assert.equal((await settings()).settlementMode, 'collected');
    // The clock stands still, so entries of one instant are in id order: the one that names a mode is looked for.
    const audit = await listAudit(d.harness.runtime, m.account.merchantId, { limit: 100 });
    const modeChanges = audit.data.filter((e) => e.action === 'updateSettings' && e.details?.settlementMode);
    assert.deepEqual(
      modeChanges.map((e) => e.details),
      [
        {
          fields: ['settlementAddresses', 'settlementMode'],
          changes: { settlementMode: { from: 'direct', to: 'collected' } },
          settlementMode: 'collected',
        },
      ],
    );
    await expectJson(await update({ settlementMode: 'direct' }), 200);
  });

  it('updateSettings audits only the fields it changed, not every field the form sent', async () => {
    await expectJson(await update({ name: 'Same Shop', collectData: false, requireTwoFactor: false }), 200);
    // The settings form sends every field; only the name and collectData differ from what is stored.
    await expectJson(
      await update({ name: 'Other Shop', collectData: true, requireTwoFactor: false, settlementMode: 'direct' }),
      200,
    );
    const audit = await listAudit(d.harness.runtime, m.account.merchantId, { limit: 100 });
    const renamed = audit.data.filter((e) => JSON.stringify(e.details).includes('Other Shop'));
    assert.deepEqual(
      renamed.map((e) => e.details),
      [
        {
          fields: ['collectData', 'name'],
          changes: { name: { from: 'Same Shop', to: 'Other Shop' }, collectData: { from: false, to: true } },
        },
      ],
    );
  });

  it('updateSettings is refused to an API key, which acts as a developer (403 forbidden)', async () => {
    await expectError(await m.call('PATCH', '/v1/dashboard/settings', { body: { name: 'Key' } }), 403, 'forbidden');
    assert.notEqual((await settings()).name, 'Key');
  });

  it('updateSettings is seen at once by authentication, whose cache holds the merchant', async () => {
    const headers = { 'api-key': m.account.testKey, 'merchant-id': m.account.merchantId };
    const before = await authenticateMerchant(d.harness.runtime, headers);
    assert.equal((await authenticateMerchant(d.harness.runtime, headers)) === before, true, 'served from the cache');
    await expectJson(await update({ name: 'Renamed', settlementAddresses: { [BASE]: ADDRESS } }), 200);
    const after = await authenticateMerchant(d.harness.runtime, headers);
    assert.equal(after.merchant.name, 'Renamed');
    assert.deepEqual(after.merchant.settlement_addresses, { [BASE]: ADDRESS });
  });

  it('updateSettings: the checkout shows the new name, and iconUrl null removes the uploaded logo', async () => {
    const id = await m.createPayment();
    const logo = await callAs(d.harness, owner, 'PUT', '/v1/dashboard/settings/logo', {
      body: { image: pngLogo().toString('base64') },
      merchantId: m.account.merchantId,
    });
    const { iconUrl } = await expectJson<{ iconUrl: string }>(logo, 200);
    await expectJson(await update({ name: 'Checkout Name' }), 200);
    const wallet = await createKey(d.harness.runtime, { kind: 'wallet', mode: 'test' });
    const merchantInfo = async () =>
      (
        await expectJson<{ merchant: { name: string; iconUrl: string | null } }>(
          await fetch(`${d.harness.server.url}/v1/gateway/payment/${id}`, { headers: { 'Api-Key': wallet.secret } }),
          200,
        )
      ).merchant;
    assert.deepEqual(await merchantInfo(), { name: 'Checkout Name', iconUrl });
    await expectJson(await update({ iconUrl: null }), 200);
    assert.deepEqual(await merchantInfo(), { name: 'Checkout Name', iconUrl: null });
    assert.equal((await fetch(`${d.harness.server.url}${iconUrl}`)).status, 404, 'the removed logo is not served');
  });
  it('updateSettings requireTwoFactor: members without two-factor authentication are then held at enrolment', async () => {
    await expectJson(await update({ requireTwoFactor: true }), 200);
    assert.equal((await settings()).requireTwoFactor, true);
    // The owner changing it has no second factor yet: from now on only enrolment (session-level) is open to them.
    await expectError(await update({ requireTwoFactor: false }), 403, 'forbidden');
  });
});
