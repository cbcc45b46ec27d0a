/**
 * Deposits only where the merchant can be paid (docs/decisions.md §22.14, issue 37): a collected payment is offered a
 * deposit address, and a collected wallet option, only on chains where its merchant has a settlement (payout)
 * address; with none, the deposit answer is empty and says why; money that still arrives on such a chain (an address
 * removed after it was given out) pays nothing and is recorded as an `unroutable_deposit` finding, never payable.
 */
import assert from 'node:assert/strict';
import {
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
} from '@solana/kit';
import { updateMerchantSettings } from '../../server/src/accounts/merchants.js';
import type { components } from '../../server/src/generated/gateway.js';
import { LOCAL, SETTLEMENT, signAction, typedDataOf } from '../gateway/checkout.js';
import { expectError, expectJson } from '../gateway/harness.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { driveJobsUntil, solanaTransactionOf } from '../helpers/wait.js';
import { describeEachDatabase } from '../helpers/db.js';
import { ASKED, startDetectionHarness, type DetectionHarness } from './detection.js';

type DepositAnswer = components['schemas']['GetDepositOptionsResponse'];

describeEachDatabase('settlement.depositChains: only where the merchant has a payout address', (get) => {
  useChainSnapshots();
  let h: DetectionHarness;
  before(async () => {
    h = await startDetectionHarness({ db: get().db });
  });
  after(() => h.close());
  beforeEach(async () => {
    await setAddresses({ [LOCAL]: SETTLEMENT, [h.solana.caip2]: h.solana.settlementOwner.address });
    await h.startAtHead();
  });

  const setAddresses = (settlementAddresses: Record<string, string>) =>
    updateMerchantSettings(h.runtime, h.account.merchantId, { settlementAddresses }, { depositSeed: true });
  const deposits = async (paymentId: string, live = false) =>
    expectJson<DepositAnswer>(
      await h.call('GET', `/v1/gateway/payment/${paymentId}/deposit`, {
        headers: live ? { 'Api-Key': h.wallet.liveKey } : {},
      }),
      200,
    );
  const depositRows = async (paymentId: string) =>
    ((await h.runtime.db.knex('deposit_addresses').where({ payment_id: paymentId })) as { chain_caip2: string }[])
      .map((r) => r.chain_caip2)
      .sort();

  it('a Solana-only collected merchant is offered no EVM deposit and no EVM collected option', async () => {
    await setAddresses({ [h.solana.caip2]: h.solana.settlementOwner.address });
    const paymentId = await h.createPayment();

    const answer = await deposits(paymentId);
    assert.deepEqual(
      answer.deposits.map((d) => d.chain),
      [h.solana.caip2],
    );
    assert.equal(answer.unavailableReason, null);
    assert.deepEqual(await depositRows(paymentId), [h.solana.caip2], 'no EVM deposit address is even allocated');

    const evmBuyer = await h.buyer();
    assert.deepEqual((await h.options(paymentId, [evmBuyer.caip10])).options, []);
    const solanaBuyer = await h.solanaBuyer();
    const solanaOptions = (await h.options(paymentId, [solanaBuyer.caip10])).options!;
    assert.deepEqual(
      solanaOptions.map((o) => o.amount.unit),
      [`caip19/${h.solanaTusd}`],
    );
  });

  it('no payout address in the payment’s mode, or no deposit network in it: an empty answer with its reason', async () => {
    // Only an address on a chain this server does not serve.
    await h.runtime.db
      .knex('merchants')
      .where({ id: h.account.merchantId })
      .update({ settlement_addresses: JSON.stringify({ 'eip155:8453': SETTLEMENT }) });
    const unpayable = await h.createPayment();
    assert.deepEqual(await deposits(unpayable), { deposits: [], unavailableReason: 'no_settlement_address' });
    assert.equal(
      await h.runtime.db.knex('deposit_accounts').where({ payment_id: unpayable }).first(),
      undefined,
      'nothing is allocated',
    );

    // A live payment on a server whose deposit networks are all test networks (issue 32 §6).
    await setAddresses({ [LOCAL]: SETTLEMENT });
    const live = await h.createPayment({ live: true });
    assert.deepEqual(await deposits(live, true), { deposits: [], unavailableReason: 'no_deposit_network' });
  });

  it('an address removed after creation: no new offer, and a transfer to the old deposit is an unroutable_deposit finding', async () => {
    const paymentId = await h.createPayment({ expiresInSeconds: 3_600 });
    const evm = (await deposits(paymentId)).deposits.find((d) => d.chain === LOCAL);
    assert.ok(evm, 'the EVM deposit was offered while the merchant had an EVM address');

    await setAddresses({ [h.solana.caip2]: h.solana.settlementOwner.address });
    assert.deepEqual(
      (await deposits(paymentId)).deposits.map((d) => d.chain),
      [h.solana.caip2],
    );
    const buyer = await h.buyer();
    assert.deepEqual((await h.options(paymentId, [buyer.caip10])).options, []);

    // A buyer who kept the old address pays it anyway.
    const paid = await h.pay(buyer, evm.address as `0x${string}`, ASKED);
    const report = await h.scan();
    assert.equal(report.recorded, 1);
    assert.deepEqual(report.succeeded, []);
    assert.equal((await h.payment(paymentId)).status, 'requires_action');
    const findings = await h.discrepancies(paymentId);
    assert.deepEqual(
      findings.map((f) => [f.kind, f.chain, f.txId, f.receivedValue, f.expectedValue]),
      [['unroutable_deposit', LOCAL, paid.hash, ASKED.toString(), '0']],
    );
    // What arrived is in the ledger (it equals the chain), all of it the buyer's excess, refundable from itself
    // (excess.ts), none of it the merchant's.
    const kinds = (await h.ledger(paymentId)).map((e) => [e.kind, e.amount]);
    assert.deepEqual(kinds, [
      ['received', ASKED],
      ['excess', ASKED],
    ]);

    // Scanned again, and again once the payment expired: the same single finding, no late payment beside it.
    await h.scan();
    h.clock.advance(2 * 3_600_000);
    await h.local.test.mine({ blocks: 70 });
    await h.scan();
    assert.deepEqual(
      (await h.discrepancies(paymentId)).map((f) => f.kind),
      ['unroutable_deposit'],
    );
    assert.deepEqual(
      (await h.ledger(paymentId)).map((e) => e.kind),
      ['received', 'excess'],
    );
  });

  it('an EIP-3009 option listed before its chain’s address was removed is refused at confirm, before anything moves', async () => {
    const paymentId = await h.createPayment();
    const buyer = await h.buyer();
    const option = (await h.options(paymentId, [buyer.caip10])).options!.find(
      (o) => o.amount.unit === `caip19/${h.tusd}`,
    );
    assert.ok(option, 'an EVM option while the merchant had an EVM address');
    const deposit = typedDataOf(option).message.to as string;
    const signature = await signAction(buyer, option);

    await setAddresses({ [h.solana.caip2]: h.solana.settlementOwner.address });
    const message = await expectError(
      await h.confirm(paymentId, { optionId: option.id, results: [signature] }),
      409,
      'invalid_state',
    );
    assert.match(message, /no longer be paid on eip155:31337/);
    await h.drain();
    assert.equal((await h.payment(paymentId)).status, 'requires_action');
    assert.equal(await h.tusdBalance(deposit), 0n, 'the authorization was never relayed');
  });

  it('a Solana option listed before its chain’s address was removed is refused at confirm, before it is broadcast', async () => {
    const paymentId = await h.createPayment();
    const buyer = await h.solanaBuyer(100_000_000n, 5_000_000_000n);
    const option = (await h.options(paymentId, [buyer.caip10])).options![0]!;
    const action = option.actions[0]!;
    assert.equal(action.type, 'build');
    const fetched = await expectJson<{ actions: { data: { params: unknown[] } }[] }>(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/fetch`, {
        body: { optionId: option.id, data: action.type === 'build' ? action.data.data : '' },
      }),
      200,
    );
    const { transaction } = fetched.actions[0]!.data.params[0] as { transaction: string };
    const signed = await partiallySignTransaction(
      [buyer.signer.keyPair],
      getTransactionDecoder().decode(Buffer.from(transaction, 'base64')),
    );

    await setAddresses({ [LOCAL]: SETTLEMENT });
    const message = await expectError(
      await h.confirm(paymentId, { optionId: option.id, results: [getBase64EncodedWireTransaction(signed)] }),
      409,
      'invalid_state',
    );
    assert.match(message, /no longer be paid on solana:/);
    assert.equal((await h.payment(paymentId)).status, 'requires_action');
    const port = h.runtime.checkout!.adapters.find((a) => a.isChainId(h.solana.caip2))!.settlement!;
    assert.equal(
      await port.balance(h.solana.caip2, h.solanaTusd, buyer.signer.address),
      100_000_000n,
      'the transfer was never broadcast',
    );
  });

  it('a Solana Pay transaction built before the address was removed and sent after pays nothing: an unroutable_deposit finding', async () => {
    const paymentId = await h.createPayment();
    const buyer = await h.solanaBuyer();
    const post = await expectJson<{ transaction: string }>(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/solana-pay`, {
        body: { account: buyer.signer.address },
        headers: { 'Api-Key': null },
      }),
      200,
    );
    await setAddresses({ [LOCAL]: SETTLEMENT });

    // The wallet signs and sends it itself, as Solana Pay wallets do.
    const signed = await partiallySignTransaction(
      [buyer.signer.keyPair],
      getTransactionDecoder().decode(Buffer.from(post.transaction, 'base64')),
    );
    const rpc = h.chains.solana[0]!.rpc;
    await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
    const signature = getSignatureFromTransaction(signed);
    await solanaTransactionOf(rpc, signature);

    const finding = await driveJobsUntil('the Solana Pay search to find the transfer', h, async () =>
      (await h.discrepancies(paymentId)).find((d) => d.kind === 'unroutable_deposit'),
    );
    assert.equal(finding.txId, signature);
    assert.equal(finding.chain, h.solana.caip2);
    assert.equal(finding.receivedValue, ASKED.toString());
    await h.drain();
    assert.equal((await h.payment(paymentId)).status, 'requires_action');
    assert.equal(await h.runtime.db.knex('payment_claims').where({ payment_id: paymentId }).first(), undefined);
    assert.deepEqual(await h.ledger(paymentId), [], 'nothing is payable');
  });
});
