import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/db.js';
import { startHarness, expectJson, type Harness } from '../merchant/harness.js';
import { visitLink } from '../../server/src/links/visits.js';

describeEachDatabase('links.visit.usesConcurrent', (get) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ db: get().db });
  });
  after(() => h.close());

  it('concurrent visits never take more than maxUses: exactly maxUses payments, the rest told used_up', async () => {
    const link = await expectJson<{ id: string }>(
      await h.call('POST', '/v1/merchant/payment-links', {
        body: { currency: 'iso4217/USD', amount: '500', description: 'Five seats', maxUses: 5 },
      }),
      201,
    );
    const outcomes = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        visitLink(h.runtime, link.id, { ip: `192.0.2.${i + 1}`, cookie: undefined }, null),
      ),
    );
    const kinds = outcomes.map((o) => (o.kind === 'unusable' ? o.state : o.kind));
    assert.equal(kinds.filter((k) => k === 'payment').length, 5, kinds.join(','));
    assert.equal(kinds.filter((k) => k === 'used_up').length, 11, kinds.join(','));
    const row = (await h.runtime.db.knex('payment_links').where({ id: link.id }).first('uses')) as { uses: number };
    assert.equal(Number(row.uses), 5);
    const counted = (await h.runtime.db.knex('payments').where({ link_id: link.id }).count({ n: '*' })) as {
      n: number | string;
    }[];
    assert.equal(Number(counted[0]!.n), 5);
  });
});
