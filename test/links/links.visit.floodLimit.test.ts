import assert from 'node:assert/strict';
import { LINK_VISIT_RULE } from '../../server/src/links/visits.js';
import { expectJson, startHarness, type Harness } from '../merchant/harness.js';

describe('links.visit.floodLimit', () => {
  let h: Harness;
  before(async () => {
    // Behind one trusted proxy, so each request may name its client address in X-Forwarded-For.
    h = await startHarness({ config: { PAYGATE_TRUST_PROXY: '1' } });
  });
  after(() => h.close());

  const visit = (linkId: string, ip: string, cookie?: string) =>
    fetch(`${h.server.url}/l/${linkId}`, {
      redirect: 'manual',
      headers: { 'X-Forwarded-For': ip, ...(cookie ? { Cookie: cookie } : {}) },
    });
  const linkPayments = async (linkId: string) =>
    Number(
      (
        (await h.runtime.db.knex('payments').where({ link_id: linkId }).count({ n: '*' })) as { n: number | string }[]
      )[0]!.n,
    );

  it('one client address creates at most the limit of payments from links; then 429 with Retry-After', async () => {
    const link = await expectJson<{ id: string }>(
      await h.call('POST', '/v1/merchant/payment-links', {
        body: { currency: 'iso4217/USD', amount: '500', description: 'Flooded' },
      }),
      201,
    );
    let firstCookie = '';
    for (let i = 0; i < LINK_VISIT_RULE.limit; i++) {
      const res = await visit(link.id, '203.0.113.7');
      assert.equal(res.status, 303, `visit ${i + 1}`);
      if (i === 0) firstCookie = res.headers.get('set-cookie')!.split(';')[0]!;
    }
    const refused = await visit(link.id, '203.0.113.7');
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), String(LINK_VISIT_RULE.lockMs / 1000));
    assert.match(await refused.text(), /"state":"rate_limited"/);
    assert.equal(await linkPayments(link.id), LINK_VISIT_RULE.limit);

    // The visitor's open payment is still handed back (it creates nothing), and another address is not held up.
    const reused = await visit(link.id, '203.0.113.7', firstCookie);
    assert.equal(reused.status, 303);
    assert.equal((await visit(link.id, '198.51.100.9')).status, 303);
    assert.equal(await linkPayments(link.id), LINK_VISIT_RULE.limit + 1);

    // After the lock, the address may start payments again.
    h.clock.advance(LINK_VISIT_RULE.lockMs + 1);
    assert.equal((await visit(link.id, '203.0.113.7')).status, 303);
  });
});
