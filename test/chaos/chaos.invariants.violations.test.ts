/**
 * The money invariants (test/helpers/invariants.ts, docs/decisions.md §27.14) against a real runtime, database and the
 * run's anvil: a scenario that paid, delivered and stopped answers no violation, and each invariant, broken on purpose
 * the way a defect would break it, answers its violation.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createWalletClient, erc20Abi, getAddress, http, type Address, type Hash } from 'viem';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { fundAccount } from '../../server/src/chains/faucet.js';
import { deadRpcUrl } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { checkInvariants, scopeOf, assertNoViolations, type InvariantName } from '../helpers/invariants.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { eventually, receiptOf } from '../helpers/wait.js';
import { LOCAL, signAction, startCheckoutHarness, type CheckoutHarness } from '../gateway/checkout.js';

describeEachDatabase('chaos invariants against a real runtime and chain', (get) => {
  let h: CheckoutHarness;
  let receiver: Receiver;
  let paid: { paymentId: string; txId: Hash };
  const randomHash = (): Hash => `0x${randomBytes(32).toString('hex')}`;

  before(async () => {
    h = await startCheckoutHarness({ db: get().db });
    receiver = await startReceiver();
    await createEndpoint(h.runtime, h.account.merchantId, 'test', { url: `${receiver.url}/hooks` });
  });
  after(async () => {
    await h.close();
    await receiver.close();
  });

  const check = () => checkInvariants(scopeOf(h.runtime, { receivers: [receiver], serving: [h.server.url] }));
  const violationsOf = async (invariant: InvariantName, mentioning: string) =>
    (await check()).filter((v) => v.invariant === invariant && v.detail.includes(mentioning));

  /** A payment of the merchant marked succeeded by `txId`, as a defect in a settlement path would mark it. */
  async function succeededBy(txId: string): Promise<string> {
    const paymentId = await h.createPayment();
    const source = (await h.runtime.db.knex('payments').where({ id: paid.paymentId }).first('processing')) as {
      processing: string;
    };
    await h.runtime.db
      .knex('payments')
      .where({ id: paymentId })
      .update({
        status: 'succeeded',
        processing: source.processing,
        success: JSON.stringify({ succeeded_at: new Date().toISOString(), tx_id: txId }),
      });
    return paymentId;
  }

  it('a payment paid on chain, its events delivered and its process serving, answers no violation', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    await h.confirm(paymentId, { optionId: option.id, results: [await signAction(buyer, option)] });
    const status = await h.settle(paymentId, 'succeeded');
    paid = { paymentId, txId: status.info!.txId as Hash };
    await eventually('the payment’s events to reach the receiver', async () => {
      await h.drain();
      return (await check()).every((v) => v.invariant !== 'eventDelivered');
    });
    assertNoViolations(await check());
  });

  it('a test-mode payment simulated to success moved nothing on a chain and answers no violation', async () => {
    const paymentId = await h.createPayment();
    await h.simulate(paymentId, 'processing', 'succeeded');
    await eventually('its events to reach the receiver', async () => {
      await h.drain();
      return (await violationsOf('eventDelivered', paymentId)).length === 0;
    });
    assert.deepEqual(
      (await check()).filter((v) => v.detail.includes(paymentId)),
      [],
    );
  });

  it('a succeeded payment whose transaction is not on the chain is a succeededOnChain violation', async () => {
    const paymentId = await succeededBy(randomHash());
    const found = await violationsOf('succeededOnChain', paymentId);
    assert.equal(found.length, 1);
    assert.match(found[0]!.detail, /not on the canonical chain/);
  });

  it('two payments counting one transfer is a transferPaysOnce violation naming both', async () => {
    const second = await succeededBy(paid.txId);
    const found = await violationsOf('transferPaysOnce', paid.txId);
    assert.equal(found.length, 1);
    assert.ok(found[0]!.detail.includes(paid.paymentId) && found[0]!.detail.includes(second), found[0]!.detail);
  });

  it('a ledger row without a chain transfer is a ledgerEqualsChain violation at the collection', async () => {
    const port = h.runtime.checkout!.adapters.find((a) => a.namespace === 'eip155')!.settlement!;
    const collection = getAddress(await port.keyAddress(LOCAL, { role: 'collection' }));
    await h.runtime.db.knex('ledger_entries').insert({
      entry_key: `swept:invented:${paid.paymentId}`,
      kind: 'swept',
      merchant_id: h.account.merchantId,
      live: false,
      mode: 'collected',
      chain_caip2: LOCAL,
      asset_caip19: h.tusd,
      amount: '1000',
      address: collection,
      payment_id: paid.paymentId,
      tx_id: randomHash(),
      created_at: h.clock.now(),
    });
    const found = await violationsOf('ledgerEqualsChain', collection);
    assert.equal(found.length, 1);
    assert.match(found[0]!.detail, /holds 0 .* the ledger says 1000/);
  });

  it('a transfer out of the collection that no move records, and a final payout not on chain, are moveSentOnce violations', async () => {
    const port = h.runtime.checkout!.adapters.find((a) => a.namespace === 'eip155')!.settlement!;
    const collection = getAddress(await port.keyAddress(LOCAL, { role: 'collection' })) as Address;
    // A second send of a payout that was not the same authorization: the collection's key moves money again.
    await fundAccount(h.chains.local!, { account: `${LOCAL}:${collection}`, asset: h.tusd, amount: '5000' });
    await h.local.test.setBalance({ address: collection, value: 10n ** 18n });
    await h.local.test.impersonateAccount({ address: collection });
    const wallet = createWalletClient({ chain: h.local.clients.chain, transport: http(h.local.config.rpcUrl) });
    const hash = await wallet.writeContract({
      account: collection,
      address: h.local.testUsd,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [getAddress(`0x${randomBytes(20).toString('hex')}`), 5000n],
    });
    await receiptOf(h.local.clients.public, hash);
    await h.local.test.stopImpersonatingAccount({ address: collection });
    const unrecorded = await violationsOf('moveSentOnce', hash);
    assert.equal(unrecorded.length, 1);
    assert.match(unrecorded[0]!.detail, /no sweep, payout or refund records/);

    const payoutId = `po_invented${randomBytes(4).toString('hex')}`;
    await h.runtime.db.knex('payouts').insert({
      id: payoutId,
      merchant_id: h.account.merchantId,
      live: false,
      chain_caip2: LOCAL,
      asset_caip19: h.tusd,
      gross: '1',
      fee: '0',
      net: '1',
      destination: collection,
      treasury: null,
      state: 'final',
      tx_id: randomHash(),
      details: '{}',
      created_at: h.clock.now(),
    });
    const lost = await violationsOf('moveSentOnce', payoutId);
    assert.equal(lost.length, 1);
    assert.match(lost[0]!.detail, /not on the canonical chain/);
  });

  it('an event the receiver never got is an eventDelivered violation until its delivery runs', async () => {
    const paymentId = await h.createPayment();
    const found = await violationsOf('eventDelivered', paymentId);
    assert.equal(found.length, 1);
    assert.match(found[0]!.detail, /payment\.created/);
    await eventually('the event to reach the receiver', async () => {
      await h.drain();
      return (await violationsOf('eventDelivered', paymentId)).length === 0;
    });
  });

  it('a process that no longer answers is a serving violation', async () => {
    const dead = await deadRpcUrl();
    const found = (await checkInvariants(scopeOf(h.runtime, { serving: [dead] }))).filter(
      (v) => v.invariant === 'serving',
    );
    assert.equal(found.length, 1);
    assert.ok(found[0]!.detail.includes(dead));
  });
});
