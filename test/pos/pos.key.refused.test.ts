import assert from 'node:assert/strict';
import { contractRoutes } from '../../server/src/http/operations.js';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError, expectJson, startGatewayHarness, type GatewayHarness } from '../gateway/harness.js';
import { createTerminal, posCall, type CreatedTerminal, type PosPayment } from './harness.js';

/** A concrete path for a contract template: every parameter gets a well-formed id. */
function pathOf(template: string, paymentId: string): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) =>
    name === 'id' || name === 'paymentId' ? paymentId : 'x',
  );
}

/** Codes that say "no usable credential here", whichever API answers. */
const REFUSALS = new Set([
  'missing_auth_headers',
  'missing_merchant_api_key',
  'invalid_api_key',
  'forbidden',
  'missing_merchant_id',
]);

describeEachDatabase('pos.key', (get) => {
  let h: GatewayHarness;
  let t: CreatedTerminal;
  let sale: PosPayment;
  before(async () => {
    h = await startGatewayHarness({ db: get().db });
    t = await createTerminal(h);
    sale = await expectJson<PosPayment>(await posCall(h, t, 'POST', '/payments', { amount: '700' }), 201);
  });
  after(() => h?.close());

  it('the POS key cannot read another payment of its merchant, nor another terminal’s sale', async () => {
    const other = await h.createPayment();
    await expectError(await posCall(h, t, 'GET', `/payments/${other}`), 404, 'payment_not_found');
    const second = await createTerminal(h, { name: 'Terrace' });
    await expectError(await posCall(h, second, 'GET', `/payments/${sale.paymentId}`), 404, 'payment_not_found');
    // Its key on the other terminal's path is refused like a wrong key.
    const crossed = await h.call('GET', `/v1/gateway/pos/${second.terminal.id}`, {
      headers: { 'Api-Key': null, 'Pos-Key': t.key },
    });
    await expectError(crossed, 401, 'invalid_api_key');
  });

  it('every other operation of the gateway, merchant and dashboard APIs refuses the POS key', async () => {
    const tried: string[] = [];
    for (const api of ['gateway', 'merchant', 'dashboard'] as const) {
      for (const route of contractRoutes(api)) {
        // Operations open to anyone (Solana Pay, refund claims, sign-in, invitations) take no credential at all.
        if (route.open || route.posKey) continue;
        if (api === 'dashboard' && /signIn|Invitation$|lookupInvitation|acceptInvitation/.test(route.operationId))
          continue;
        const path = pathOf(route.template, sale.paymentId);
        const variants: Record<string, string | null>[] = [
          { 'Pos-Key': t.key, 'Api-Key': null },
          { 'Api-Key': t.key, 'Merchant-Id': h.account.merchantId },
        ];
        for (const headers of variants) {
          const res = await h.call(route.method, path, {
            headers,
            body: route.hasBody ? {} : undefined,
          });
          const text = await res.text();
          assert.ok(res.status === 401 || res.status === 403, `${api} ${route.operationId}: ${res.status} ${text}`);
          const code = (JSON.parse(text) as { code: string }).code;
          assert.ok(REFUSALS.has(code), `${api} ${route.operationId}: ${code}`);
        }
        tried.push(route.operationId);
      }
    }
    assert.ok(tried.length > 40, `${tried.length} operations tried`);
  });

  it('a revoked terminal’s key is refused at once, and its sales stay the merchant’s', async () => {
    const r = await createTerminal(h, { name: 'Pop-up' });
    const kept = await expectJson<PosPayment>(await posCall(h, r, 'POST', '/payments', { amount: '900' }), 201);
    const merchant = { 'Api-Key': h.account.testKey, 'Merchant-Id': h.account.merchantId };
    const revoked = await h.call('DELETE', `/v1/dashboard/pos-terminals/${r.terminal.id}`, { headers: merchant });
    assert.equal((await expectJson<{ revokedAt: number | null }>(revoked, 200)).revokedAt !== null, true);
    await expectError(await posCall(h, r, 'GET', ''), 401, 'invalid_api_key');
    await expectError(await posCall(h, r, 'POST', '/payments', { amount: '100' }), 401, 'invalid_api_key');
    await expectError(
      await h.call('DELETE', `/v1/dashboard/pos-terminals/${r.terminal.id}`, { headers: merchant }),
      409,
      'invalid_state',
    );
    const read = await h.call('GET', `/v1/merchant/payment/${kept.paymentId}`, { headers: merchant });
    assert.equal(read.status, 200);
    const list = await expectJson<{ data: { id: string; revokedAt: number | null; keyPrefix: string }[] }>(
      await h.call('GET', '/v1/dashboard/pos-terminals', { headers: merchant }),
      200,
    );
    const listed = list.data.find((x) => x.id === r.terminal.id)!;
    assert.notEqual(listed.revokedAt, null);
    assert.ok(r.key.startsWith(listed.keyPrefix));
    assert.ok(!JSON.stringify(list).includes(r.key), 'the key is never listed');
  });

  it('a missing or malformed Pos-Key is refused before anything else', async () => {
    await expectError(
      await h.call('GET', `/v1/gateway/pos/${t.terminal.id}`, { headers: { 'Api-Key': null } }),
      401,
      'missing_auth_headers',
    );
    await expectError(
      await h.call('GET', `/v1/gateway/pos/${t.terminal.id}`, {
        headers: { 'Api-Key': null, 'Pos-Key': 'posk_test_x' },
      }),
      401,
      'invalid_api_key',
    );
    // A wallet key does not open the POS operations either.
    await expectError(await h.call('GET', `/v1/gateway/pos/${t.terminal.id}`), 401, 'missing_auth_headers');
  });
});

describeEachDatabase('pos.key payment ids', (get) => {
  let h: GatewayHarness;
  let t: CreatedTerminal;
  before(async () => {
    h = await startGatewayHarness({ db: get().db });
    t = await createTerminal(h);
  });
  after(() => h?.close());

  it('getPosPayment answers an id of any form that names no sale of the terminal as unknown; over 128 characters 400', async () => {
    for (const id of [
      'pay_AAAAAAAAAAAAAAAAAAAAAAAA',
      'xyz',
      'pay_💸',
      `pay_\u0000${'A'.repeat(23)}`,
      'p'.repeat(128),
    ]) {
      await expectError(await posCall(h, t, 'GET', `/payments/${encodeURIComponent(id)}`), 404, 'payment_not_found');
    }
    await expectError(await posCall(h, t, 'GET', `/payments/${'p'.repeat(129)}`), 400, 'params_validation');
  });
});
