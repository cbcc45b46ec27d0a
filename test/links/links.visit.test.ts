import assert from 'node:assert/strict';
import { expectJson, simulate, startHarness, type Harness } from '../merchant/harness.js';

interface Link {
  id: string;
  url: string;
  state: string;
  uses: number;
  totals: { payments: number; succeeded: number; succeededAmount: string };
}

/** The page's JSON block (web/src/link/config.ts). */
function pageConfig(html: string): { state: string; error: string | null; description: string | null } {
  const match = /<script type="application\/json" id="paygate-config">(.*?)<\/script>/s.exec(html);
  assert.ok(match, 'the page has its config block');
  return JSON.parse(match[1]!) as { state: string; error: string | null; description: string | null };
}

describe('links.visit (the /l/{linkId} page)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const create = async (body: Record<string, unknown>) =>
    expectJson<Link>(
      await h.call('POST', '/v1/merchant/payment-links', { body: { currency: 'iso4217/USD', ...body } }),
      201,
    );
  const readLink = async (id: string) => expectJson<Link>(await h.call('GET', `/v1/merchant/payment-links/${id}`), 200);
  const visit = (id: string, options: { cookie?: string; form?: Record<string, string> } = {}) =>
    fetch(`${h.server.url}/l/${id}`, {
      method: options.form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        ...(options.cookie ? { Cookie: options.cookie } : {}),
        ...(options.form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: options.form ? new URLSearchParams(options.form).toString() : undefined,
    });
  const paymentOf = async (res: Response) => {
    assert.equal(res.status, 303, await res.clone().text());
    const location = res.headers.get('location')!;
    const id = /\/pay\/(pay_[0-9A-Za-z]{24})$/.exec(location)?.[1];
    assert.ok(id, location);
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    const snapshot = await expectJson<Record<string, unknown>>(await h.call('GET', `/v1/merchant/payment/${id}`), 200);
    return { id, cookie, snapshot };
  };

  it('a fixed-price link: the visit creates a payment from the link and continues into the checkout', async () => {
    const link = await create({
      amount: '2500',
      description: 'Winter concert',
      lineItems: [{ name: 'Ticket', quantity: 1, unitAmount: '2500' }],
      metadata: { campaign: 'winter' },
    });
    const { id, snapshot } = await paymentOf(await visit(link.id));
    // What the link sells is copied into the payment (issue 35 §1's fields).
    assert.equal(snapshot.description, 'Winter concert');
    assert.deepEqual(snapshot.metadata, { campaign: 'winter' });
    assert.equal((snapshot.line_items as unknown[]).length, 1);
    assert.equal(snapshot.link_id, link.id);
    assert.equal(snapshot.reference_id, link.id);
    assert.deepEqual(snapshot.amount, { unit: 'iso4217/USD', value: '2500' });
    assert.equal(snapshot.status, 'requires_action');
    assert.equal(snapshot.live, false);
    assert.equal((await readLink(link.id)).uses, 1);
    assert.ok(id);
  });

  it("the visitor's still-open payment is reused (signed cookie); a forged cookie is not", async () => {
    const link = await create({ amount: '2500', description: 'Winter concert' });
    const first = await paymentOf(await visit(link.id));
    const again = await paymentOf(await visit(link.id, { cookie: first.cookie }));
    assert.equal(again.id, first.id);
    assert.equal((await readLink(link.id)).uses, 1);
    const forged = first.cookie.replace(/\.[^.]+$/, '.AAAAAAAAAAAAAAAAAAAAAAAA');
    const other = await paymentOf(await visit(link.id, { cookie: forged }));
    assert.notEqual(other.id, first.id);
    // Once paid, the payment is not open any more: the next visit makes a new one.
    await simulate(h, first.id, 'processing', 'succeeded');
    const after = await paymentOf(await visit(link.id, { cookie: first.cookie }));
    assert.notEqual(after.id, first.id);
  });

  it('a donation link: a form first, then the amount the buyer chose; out of bounds is refused on the page', async () => {
    const link = await create({ minAmount: '100', maxAmount: '100000', description: 'Support the radio' });
    const form = await visit(link.id);
    assert.equal(form.status, 200);
    assert.match(form.headers.get('content-security-policy') ?? '', /form-action 'self'/);
    const config = pageConfig(await form.text());
    assert.equal(config.state, 'form');
    assert.equal(config.description, 'Support the radio');
    const { snapshot } = await paymentOf(await visit(link.id, { form: { amount: '12.50' } }));
    assert.deepEqual(snapshot.amount, { unit: 'iso4217/USD', value: '1250' });
    for (const amount of ['0.50', '1000.01', '12.505', 'abc', '']) {
      const refused = await visit(link.id, { form: { amount } });
      assert.equal(refused.status, 400, amount);
      assert.match(pageConfig(await refused.text()).error ?? '', /from 1\.00 to 1000\.00 USD/);
    }
    assert.equal((await readLink(link.id)).uses, 1);
  });

  it('an adjustable quantity multiplies the price', async () => {
    const link = await create({
      amount: '2500',
      adjustableQuantity: true,
      maxQuantity: 4,
      description: 'Tickets',
      lineItems: [
        { name: 'Seat', quantity: 1, unitAmount: '2000' },
        { name: 'Fee', quantity: 1, unitAmount: '500' },
      ],
    });
    assert.equal(pageConfig(await (await visit(link.id)).text()).state, 'form');
    const { snapshot } = await paymentOf(await visit(link.id, { form: { quantity: '3' } }));
    assert.deepEqual(snapshot.amount, { unit: 'iso4217/USD', value: '7500' });
    assert.deepEqual(
      (snapshot.line_items as { name: string; quantity: number }[]).map((l) => [l.name, l.quantity]),
      [
        ['Seat', 3],
        ['Fee', 3],
      ],
    );
    const refused = await visit(link.id, { form: { quantity: '5' } });
    assert.equal(refused.status, 400);
  });

  it('a link exhausts its uses: the page then says so, and the link is used_up', async () => {
    const link = await create({ amount: '500', description: 'Limited', maxUses: 2 });
    await paymentOf(await visit(link.id));
    await paymentOf(await visit(link.id));
    const third = await visit(link.id);
    assert.equal(third.status, 410);
    assert.equal(pageConfig(await third.text()).state, 'used_up');
    const read = await readLink(link.id);
    assert.equal(read.state, 'used_up');
    assert.equal(read.uses, 2);
    assert.equal(read.totals.payments, 2);
  });

  it('deactivated, expired and unknown links show why, and create nothing', async () => {
    const off = await create({ amount: '500', description: 'Off' });
    await h.call('POST', `/v1/merchant/payment-links/${off.id}/deactivate`);
    const expiring = await create({
      amount: '500',
      description: 'Soon',
      expiresAt: Math.floor(h.clock.now() / 1000) + 60,
    });
    h.clock.advance(61_000);
    for (const [id, status, state] of [
      [off.id, 410, 'deactivated'],
      [expiring.id, 410, 'expired'],
      ['plink_AAAAAAAAAAAAAAAAAAAA', 404, 'not_found'],
      ['whatever', 404, 'not_found'],
    ] as const) {
      const res = await visit(id);
      assert.equal(res.status, status, id);
      assert.equal(pageConfig(await res.text()).state, state);
    }
    assert.equal((await readLink(off.id)).uses, 0);
  });

  it("the link's totals count its payments and sum the succeeded ones", async () => {
    const link = await create({ minAmount: '100', maxAmount: '100000', description: 'Totals' });
    const a = await paymentOf(await visit(link.id, { form: { amount: '10' } }));
    const b = await paymentOf(await visit(link.id, { form: { amount: '2.5' } }));
    await paymentOf(await visit(link.id, { form: { amount: '7' } }));
    await simulate(h, a.id, 'processing', 'succeeded');
    await simulate(h, b.id, 'processing', 'succeeded');
    const read = await readLink(link.id);
    assert.deepEqual(read.totals, { payments: 3, succeeded: 2, succeededAmount: '1250' });
  });
});
