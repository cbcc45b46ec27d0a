/**
 * Deposit addresses (settlement/collected/deposits.ts): a payment's derivation index is allocated once, by insert-or-read, so
 * repeated and concurrent callers get the same index and addresses on both databases; each address is the deposit
 * key of that index on its chain, recorded before anyone sees it.
 */
import assert from 'node:assert/strict';
import { depositAddressesFor } from '../../server/src/settlement/collected/deposits.js';
import { findPayment, type PaymentRow } from '../../server/src/db/queries/payments.js';
import { startCheckoutHarness, type CheckoutHarness } from '../gateway/checkout.js';
import { describeEachDatabase } from '../helpers/db.js';

describeEachDatabase('settlement.depositAddresses', (get) => {
  let h: CheckoutHarness;
  before(async () => {
    h = await startCheckoutHarness({ db: get().db });
  });
  after(() => h.close());

  const checkout = () => h.runtime.checkout!;
  const payment = async (live = false): Promise<PaymentRow> =>
    (await findPayment(h.runtime.db.knex, await h.createPayment({ live })))!;
  const countRows = async (table: string, paymentId: string) =>
    Number((await h.runtime.db.knex(table).where({ payment_id: paymentId }).count({ n: '*' }).first())?.n);

  it('depositAddressesFor: one index and one address per chain of the mode, the same on every call', async () => {
    const p = await payment();
    const first = await depositAddressesFor(checkout(), p);
    const again = await depositAddressesFor(checkout(), p);
    assert.deepEqual(again, first);
    assert.deepEqual(first.map((a) => a.chain).sort(), ['eip155:31337', h.solana.caip2].sort());
    assert.equal(await countRows('deposit_accounts', p.id), 1);
    assert.equal(await countRows('deposit_addresses', p.id), 2);
    const { derivation_index: index } = await h.runtime.db.knex('deposit_accounts').where({ payment_id: p.id }).first();
    assert.ok(Number(index) >= 1);
    for (const a of first) {
      const port = checkout().adapters.find((x) => a.chain.startsWith(`${x.namespace}:`))!.settlement!;
      assert.equal(a.address, await port.keyAddress(a.chain, { role: 'deposit', index: Number(index) }));
      const row = await h.runtime.db
        .knex('deposit_addresses')
        .where({ chain_caip2: a.chain, address: a.address })
        .first();
      assert.equal(row.payment_id, p.id);
      assert.equal(Number(row.derivation_index), Number(index));
    }
  });

  it('depositAddressesFor: concurrent first calls for one payment agree on a single index', async () => {
    const p = await payment();
    const answers = await Promise.all(Array.from({ length: 8 }, () => depositAddressesFor(checkout(), p)));
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
    assert.equal(await countRows('deposit_accounts', p.id), 1);
    assert.equal(await countRows('deposit_addresses', p.id), 2);
  });

  it('depositAddressesFor: two payments get different indexes and different addresses', async () => {
    const [a, b] = [await payment(), await payment()];
    const [first, second] = await Promise.all([depositAddressesFor(checkout(), a), depositAddressesFor(checkout(), b)]);
    for (const chain of first.map((x) => x.chain)) {
      assert.notEqual(first.find((x) => x.chain === chain)!.address, second.find((x) => x.chain === chain)!.address);
    }
  });

  it('depositAddressesFor: a live payment where no live chain takes deposits allocates nothing', async () => {
    const p = await payment(true);
    assert.deepEqual(await depositAddressesFor(checkout(), p), []);
    assert.equal(await countRows('deposit_accounts', p.id), 0);
  });
});
