import assert from 'node:assert/strict';
import { expectError, expectJson, startHarness, type Harness } from '../merchant/harness.js';

interface Link {
  id: string;
  url: string;
  state: string;
  active: boolean;
  amount: string | null;
  minAmount: string | null;
  maxAmount: string | null;
  maxQuantity: number | null;
  uses: number;
  maxUses: number | null;
  expiresAt: number | null;
  description: string;
  metadata: Record<string, string>;
  totals: { payments: number; succeeded: number; succeededAmount: string };
}

const donation = {
  currency: 'iso4217/USD',
  minAmount: '100',
  maxAmount: '100000',
  description: 'Support the community radio',
};

describe('links.paymentLinks (merchant and dashboard API)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const create = async (body: unknown, live = false) =>
    expectJson<Link>(await h.call('POST', '/v1/merchant/payment-links', { body, live }), 201);

  it('201: creates a donation link, active, with its public url and empty totals', async () => {
    const link = await create({ ...donation, metadata: { campaign: 'winter' } });
    assert.match(link.id, /^plink_[0-9A-Za-z]{20}$/);
    assert.equal(link.url, `${h.runtime.config.publicBaseUrl}/l/${link.id}`);
    assert.equal(link.state, 'active');
    assert.equal(link.amount, null);
    assert.equal(link.minAmount, '100');
    assert.deepEqual(link.metadata, { campaign: 'winter' });
    assert.deepEqual(link.totals, { payments: 0, succeeded: 0, succeededAmount: '0' });
    assert.deepEqual(await expectJson(await h.call('GET', `/v1/merchant/payment-links/${link.id}`), 200), link);
  });

  it('400 params_validation: the rules the schema cannot say', async () => {
    const cases: [unknown, RegExp][] = [
      [{ currency: 'iso4217/USD', description: 'x' }, /either amount or both/],
      [{ ...donation, amount: '100' }, /either amount or both/],
      [{ ...donation, maxAmount: undefined }, /both minAmount and maxAmount/],
      [{ ...donation, minAmount: '500', maxAmount: '100' }, /not be above/],
      [{ ...donation, adjustableQuantity: true }, /no quantity/],
      [
        {
          currency: 'iso4217/USD',
          amount: '1000',
          description: 'x',
          lineItems: [{ name: 'a', quantity: 2, unitAmount: '400' }],
        },
        /add up to 800, not to the amount 1000/,
      ],
      [{ currency: 'iso4217/USD', amount: '1000', description: 'x', maxQuantity: 3 }, /needs adjustableQuantity/],
      [{ ...donation, successUrl: 'https://shop.example/ok' }, /both successUrl and cancelUrl/],
      [{ ...donation, expiresAt: Math.floor(h.clock.now() / 1000) - 1 }, /in the future/],
      [{ ...donation, currency: 'iso4217/XYZ' }, /not an active ISO 4217/],
    ];
    for (const [body, message] of cases) {
      const error = await expectError(
        await h.call('POST', '/v1/merchant/payment-links', { body }),
        400,
        'params_validation',
      );
      assert.match(error, message, `${JSON.stringify(body)}: ${error}`);
    }
  });

  it("404 invalid_params: an unknown id, another mode's link, a malformed id", async () => {
    const testLink = await create(donation);
    for (const [id, live] of [
      ['plink_AAAAAAAAAAAAAAAAAAAA', false],
      [testLink.id, true],
      ['nope', false],
    ] as const) {
      await expectError(await h.call('GET', `/v1/merchant/payment-links/${id}`, { live }), 404, 'invalid_params');
    }
  });

  it('updates, deactivates (idempotently) and reactivates a link; prices cannot change', async () => {
    const link = await create(donation);
    const updated = await expectJson<Link>(
      await h.call('PATCH', `/v1/merchant/payment-links/${link.id}`, {
        body: { description: 'New words', maxUses: 5 },
      }),
      200,
    );
    assert.equal(updated.description, 'New words');
    assert.equal(updated.maxUses, 5);
    await expectError(
      await h.call('PATCH', `/v1/merchant/payment-links/${link.id}`, { body: { amount: '100' } }),
      400,
      'params_validation',
    );
    const off = await expectJson<Link>(await h.call('POST', `/v1/merchant/payment-links/${link.id}/deactivate`), 200);
    assert.equal(off.state, 'deactivated');
    assert.deepEqual(
      await expectJson(await h.call('POST', `/v1/merchant/payment-links/${link.id}/deactivate`), 200),
      off,
    );
    const on = await expectJson<Link>(
      await h.call('PATCH', `/v1/merchant/payment-links/${link.id}`, { body: { active: true } }),
      200,
    );
    assert.equal(on.state, 'active');
  });

  it('a link is expired once its expiresAt passes (the injected clock)', async () => {
    const link = await create({ ...donation, expiresAt: Math.floor(h.clock.now() / 1000) + 60 });
    assert.equal(link.state, 'active');
    h.clock.advance(61_000);
    const later = await expectJson<Link>(await h.call('GET', `/v1/merchant/payment-links/${link.id}`), 200);
    assert.equal(later.state, 'expired');
  });

  it('lists newest first with a cursor, per mode', async () => {
    const live = await create(donation, true);
    const a = await create(donation);
    h.clock.advance(1_000);
    const b = await create(donation);
    const first = await expectJson<{ data: Link[]; hasMore: boolean; nextCursor: string | null }>(
      await h.call('GET', '/v1/merchant/payment-links?limit=1'),
      200,
    );
    assert.deepEqual(
      first.data.map((l) => l.id),
      [b.id],
    );
    assert.equal(first.hasMore, true);
    const rest = await expectJson<{ data: Link[] }>(
      await h.call('GET', `/v1/merchant/payment-links?limit=100&startingAfter=${first.nextCursor}`),
      200,
    );
    assert.ok(rest.data.some((l) => l.id === a.id));
    assert.ok(!rest.data.some((l) => l.id === live.id));
  });

  it('the dashboard API serves the same links in the request mode (API key acting as developer)', async () => {
    const link = await create(donation);
    const got = await expectJson<Link>(await h.call('GET', `/v1/dashboard/payment-links/${link.id}`), 200);
    assert.equal(got.id, link.id);
    const made = await expectJson<Link>(
      await h.call('POST', '/v1/dashboard/payment-links', {
        body: { currency: 'iso4217/USD', amount: '2500', description: 'Ticket' },
      }),
      201,
    );
    assert.equal(made.amount, '2500');
    const off = await expectJson<Link>(await h.call('POST', `/v1/dashboard/payment-links/${made.id}/deactivate`), 200);
    assert.equal(off.active, false);
  });
});
