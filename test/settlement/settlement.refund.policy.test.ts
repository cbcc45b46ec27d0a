/**
 * The refund policy (settlement/refundPolicy.ts, docs/decisions.md §22.13) through the real merchant and dashboard
 * APIs on both databases: the minimum on-chain refund, the limit per payment, the network fee the merchant bears
 * (charged and given back in the ledger), who may send a refund that needs an owner, and the audit rows of refunds.
 */
import assert from 'node:assert/strict';
import { createApp, createRuntime, type Runtime } from '@paygate/server';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createKey } from '../../server/src/accounts/apiKeys.js';
import { insertClaim } from '../../server/src/db/queries/claims.js';
import { createPayment, transitionPayment } from '../../server/src/payments/lifecycle.js';
import { insertLedgerEntries, listLedgerEntries, unpaidBalances } from '../../server/src/settlement/ledger.js';
import { sharedChains } from '../helpers/chain.js';
import { testConfig } from '../helpers/config.js';
import { describeEachDatabase } from '../helpers/db.js';
import { createMerchantAccount, type MerchantAccount } from '../helpers/fixtures.js';
import { listen, type Listening } from '../helpers/http.js';
import { captureLogs } from '../helpers/logs.js';
import { expectError, expectJson } from '../helpers/responses.js';
import { testClock, type TestClock } from '../helpers/runtime.js';
import type { Harness } from '../merchant/harness.js';
import { callAs, createPerson, sessionFor, type SignedIn } from '../dashboard/people.js';

interface Refund {
  refund_id: string;
  amount: { unit: string; value: string };
  state: string;
  destination: string | null;
  claim_url?: string | null;
  network_fee?: { unit: string; value: string };
}
interface RefundAnswer {
  refund?: Refund;
}
interface AuditPage {
  data: {
    actor: { kind: string; id: string };
    action: string;
    target: string | null;
    mode: string | null;
    ip: string | null;
    details: Record<string, unknown> | null;
  }[];
}

/** 1 TUSD (6 decimals) minimum, 0.25 TUSD network fee, an owner above 20 TUSD, 3 refunds per payment. */
const MINIMUM = 1_000_000n;
const FEE = 250_000n;
const OWNER_ABOVE = 20_000_000n;

describeEachDatabase('settlement.refund.policy', (get) => {
  let runtime: Runtime;
  let server: Listening;
  let clock: TestClock;
  let chain: string;
  let tusd: string;
  let account: MerchantAccount;

  before(async () => {
    const chains = await sharedChains();
    clock = testClock();
    runtime = await createRuntime({
      config: testConfig({
        PAYGATE_RATE_LIMIT_RPS: '1000000',
        PAYGATE_RATE_LIMIT_BURST: '1000000',
        PAYGATE_REFUND_MINIMUM: '1',
        PAYGATE_REFUND_NETWORK_FEE: '0.25',
        PAYGATE_REFUND_OWNER_ABOVE: '20',
        PAYGATE_REFUND_LIMIT_PER_PAYMENT: '3',
      }),
      db: get().db,
      migrate: false,
      logger: captureLogs('info').logger,
      now: clock.now,
      chains,
    });
    server = await listen(createApp({ runtime, validateResponses: true }));
    chain = chains.local!.evm.config.caip2;
    tusd = `${chain}/erc20:${chains.local!.evm.testUsd}`;
  });
  beforeEach(async () => {
    account = await createMerchantAccount(runtime);
  });
  after(async () => {
    await server.close();
    await runtime.close();
  });

  /** A succeeded live payment settled in collected mode (its `payable` entry); paid by `wallet`'s confirm if given. */
  async function collectedPayment(payable: bigint, wallet?: string): Promise<string> {
    const payment = await createPayment(runtime, {
      merchantId: account.merchantId,
      live: true,
      referenceId: 'order-1',
      amount: { unit: 'iso4217/USD', value: '1000' },
      expiresAt: clock.now() + 30 * 60_000,
      successUrl: null,
      errorUrl: null,
    });
    await transitionPayment(runtime, payment.id, { to: 'processing', stages: {} });
    await transitionPayment(runtime, payment.id, { to: 'succeeded', stages: {} });
    if (wallet !== undefined) {
      await insertClaim(get().db.knex, {
        id: `clm_${payment.id.slice(4)}`,
        paymentId: payment.id,
        claimKey: `${chain}:test:${payment.id}`,
        kind: 'test',
        chain,
        account: `${chain}:${wallet}`,
        txId: null,
        state: 'succeeded',
        details: {},
        optionDigest: 'o',
        resultsDigest: 'r',
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
    }
    await insertLedgerEntries(get().db.knex, [
      {
        entryKey: `payable:${payment.id}`,
        kind: 'payable',
        merchantId: account.merchantId,
        live: true,
        mode: 'collected',
        chain,
        asset: tusd,
        amount: payable,
        address: null,
        paymentId: payment.id,
        createdAt: clock.now(),
      },
    ]);
    return payment.id;
  }

  const refund = (paymentId: string, body: unknown = {}, key = account.liveKey) =>
    fetch(`${server.url}/v1/merchant/payment/${paymentId}/refund`, {
      method: 'POST',
      headers: { 'Api-Key': key, 'Merchant-Id': account.merchantId, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const unpaid = async () =>
    (await unpaidBalances(get().db.knex, { merchantId: account.merchantId, live: true }))[0]?.amount ?? 0n;
  const wallet = () => privateKeyToAccount(generatePrivateKey()).address;
  const refundRows = async (paymentId: string) =>
    (await get().db.knex('onchain_refunds').where({ payment_id: paymentId })) as unknown[];
  /** A live key of the merchant's partner that no owner allowed to refund (as every key before this change). */
  const plainKey = async () =>
    (await createKey(runtime, { kind: 'merchant', mode: 'live', partnerId: account.partnerId })).secret;
  const harness = () => ({ runtime, server }) as unknown as Harness;
  async function member(role: 'owner' | 'developer'): Promise<SignedIn> {
    return sessionFor(harness(), await createPerson(runtime, { merchantId: account.merchantId, role }));
  }
  const createDashboardKey = (who: SignedIn, body: unknown) =>
    callAs(harness(), who, 'POST', '/v1/dashboard/api-keys', { merchantId: account.merchantId, mode: 'live', body });

  it('refundPayment below the minimum on-chain refund is 400 params_validation naming amount, and writes nothing', async () => {
    const paymentId = await collectedPayment(10_000_000n, wallet());
    const res = await refund(paymentId, { amount: (MINIMUM - 1n).toString() });
    const body = (await res.clone().json()) as { param?: string };
    const message = await expectError(res, 400, 'params_validation');
    assert.match(message, /below the minimum on-chain refund of 1000000 minor units/);
    assert.equal(body.param, 'amount');
    assert.deepEqual(await refundRows(paymentId), []);
    assert.equal(await unpaid(), 10_000_000n);
    // One unit: the drain of the issue, refused the same way.
    await expectError(await refund(paymentId, { amount: '1' }), 400, 'params_validation');
    await expectJson(await refund(paymentId, { amount: MINIMUM.toString() }), 200);
  });

  it('refundPayment past the limit of refunds per payment is 409 invalid_state; ended claim links do not count', async () => {
    const paymentId = await collectedPayment(10_000_000n);
    const link = await expectJson<RefundAnswer>(await refund(paymentId, { amount: MINIMUM.toString() }), 200);
    const cancelled = await fetch(`${server.url}/v1/merchant/refunds/${link.refund!.refund_id}/cancel`, {
      method: 'POST',
      headers: { 'Api-Key': account.liveKey, 'Merchant-Id': account.merchantId },
    });
    await expectJson(cancelled, 200);
    for (let i = 0; i < 3; i++) await expectJson(await refund(paymentId, { amount: MINIMUM.toString() }), 200);
    const message = await expectError(await refund(paymentId, { amount: MINIMUM.toString() }), 409, 'invalid_state');
    assert.match(message, /has 3 on-chain refunds, the most one payment may have/);
    assert.equal((await refundRows(paymentId)).length, 4, 'the cancelled link and three refunds; no fifth');
  });

  it('refundPayment charges the network fee to the unpaid balance (refund_network_fee) out of the payment, and shows it', async () => {
    const paymentId = await collectedPayment(10_000_000n, wallet());
    const first = await expectJson<RefundAnswer>(await refund(paymentId, { amount: '4000000' }), 200);
    assert.deepEqual(first.refund!.network_fee, { unit: `caip19/${tusd}`, value: FEE.toString() });
    assert.equal(await unpaid(), 10_000_000n - 4_000_000n - FEE, 'the refund and its fee leave the balance');
    const fees = await listLedgerEntries(get().db.knex, { paymentId, kinds: ['refund_network_fee'] });
    assert.deepEqual(
      fees.map((e) => [e.amount, e.refundId, e.mode, e.entryKey]),
      [[FEE, first.refund!.refund_id, 'collected', `refund_network_fee:${first.refund!.refund_id}`]],
    );
    // What is left of the payment (6 TUSD, less the first fee) must cover the refund and its own fee.
    const tooMuch = await refund(paymentId, { amount: (6_000_000n - FEE).toString() });
    assert.match(
      await expectError(tooMuch, 409, 'invalid_state'),
      /plus its network fee of 250000 exceeds the 5750000 left/,
    );
    // No amount: all that is left, less the fee.
    const rest = await expectJson<RefundAnswer>(await refund(paymentId), 200);
    assert.equal(rest.refund!.amount.value, (6_000_000n - 2n * FEE).toString());
    assert.equal(await unpaid(), 0n, 'the payment is refunded in full, its fees included; never below zero');
    await expectError(await refund(paymentId), 409, 'already_refunded');
  });

  it('refundPayment whose amount and fee exceed the unpaid balance is 409 invalid_state, and writes nothing', async () => {
    const paymentId = await collectedPayment(10_000_000n, wallet());
    // The rest of the payment was paid out: the balance holds 5 TUSD.
    await insertLedgerEntries(get().db.knex, [
      {
        entryKey: `paid_out:test:${paymentId}`,
        kind: 'paid_out',
        merchantId: account.merchantId,
        live: true,
        mode: 'collected',
        chain,
        asset: tusd,
        amount: 5_000_000n,
        address: null,
        paymentId,
        createdAt: clock.now(),
      },
    ]);
    const message = await expectError(await refund(paymentId, { amount: '5000000' }), 409, 'invalid_state');
    assert.match(message, /plus its network fee of 250000 exceeds the merchant's unpaid balance of 5000000/);
    assert.deepEqual(await refundRows(paymentId), []);
    assert.equal(await unpaid(), 5_000_000n);
  });

  it('a cancelled claim link gives its network fee back with its reservation (refund_fee_released), once', async () => {
    const paymentId = await collectedPayment(10_000_000n);
    const link = await expectJson<RefundAnswer>(await refund(paymentId, { amount: '3000000' }), 200);
    assert.equal(await unpaid(), 7_000_000n - FEE);
    const cancel = () =>
      fetch(`${server.url}/v1/merchant/refunds/${link.refund!.refund_id}/cancel`, {
        method: 'POST',
        headers: { 'Api-Key': account.liveKey, 'Merchant-Id': account.merchantId },
      });
    const cancelled = await expectJson<Refund>(await cancel(), 200);
    assert.deepEqual(cancelled.network_fee, { unit: `caip19/${tusd}`, value: FEE.toString() });
    await expectError(await cancel(), 409, 'invalid_state');
    assert.equal(await unpaid(), 10_000_000n);
    const released = await listLedgerEntries(get().db.knex, { paymentId, kinds: ['refund_fee_released'] });
    assert.deepEqual(
      released.map((e) => [e.amount, e.refundId]),
      [[FEE, link.refund!.refund_id]],
    );
  });

  it('refundPayment through a claim link with a key no owner allowed to refund is 403 forbidden, and writes nothing', async () => {
    const paymentId = await collectedPayment(10_000_000n);
    const message = await expectError(
      await refund(paymentId, { amount: '2000000' }, await plainKey()),
      403,
      'forbidden',
    );
    assert.match(message, /claim link .* needs an API key an owner created in the dashboard with refunds allowed/);
    assert.deepEqual(await refundRows(paymentId), []);
    assert.equal(await unpaid(), 10_000_000n);
  });

  it('refundPayment above the owner threshold with a key no owner allowed is 403 forbidden; to the paying wallet below it, 200', async () => {
    const paymentId = await collectedPayment(50_000_000n, wallet());
    const key = await plainKey();
    const above = await refund(paymentId, { amount: (OWNER_ABOVE + 1n).toString() }, key);
    assert.match(
      await expectError(above, 403, 'forbidden'),
      /more than 20000000 minor units .* needs an API key an owner/,
    );
    const below = await expectJson<RefundAnswer>(await refund(paymentId, { amount: OWNER_ABOVE.toString() }, key), 200);
    assert.equal(below.refund!.state, 'planned', 'the common case keeps working with any key');
  });

  it('createApiKey with canRefund: only an owner’s session may; the key it makes refunds through a claim link', async () => {
    const developer = await member('developer');
    const refused = await createDashboardKey(developer, { mode: 'live', canRefund: true });
    assert.match(await expectError(refused, 403, 'forbidden'), /Only an owner signed in to the dashboard/);
    // An API key acts as developer: it cannot mint a refund key either.
    const byKey = await fetch(`${server.url}/v1/dashboard/api-keys`, {
      method: 'POST',
      headers: { 'Api-Key': account.liveKey, 'Merchant-Id': account.merchantId, 'Content-Type': 'application/json' },
      body: JSON.stringify({ mode: 'live', canRefund: true }),
    });
    await expectError(byKey, 403, 'forbidden');

    const devKey = await expectJson<{ apiKey: { canRefund: boolean }; secret: string }>(
      await createDashboardKey(developer, { mode: 'live' }),
      201,
    );
    assert.equal(devKey.apiKey.canRefund, false);
    const owner = await member('owner');
    const ownerKey = await expectJson<{ apiKey: { id: string; canRefund: boolean }; secret: string }>(
      await createDashboardKey(owner, { mode: 'live', canRefund: true }),
      201,
    );
    assert.equal(ownerKey.apiKey.canRefund, true);

    const paymentId = await collectedPayment(50_000_000n);
    await expectError(await refund(paymentId, { amount: '2000000' }, devKey.secret), 403, 'forbidden');
    const sent = await expectJson<RefundAnswer>(await refund(paymentId, { amount: '30000000' }, ownerKey.secret), 200);
    assert.equal(sent.refund!.state, 'awaiting_claim');
    assert.match(sent.refund!.claim_url!, /\/refund#/);
  });

  it('refundPayment and cancelRefund through the merchant API are in the audit log: key id, payment, amount, destination kind', async () => {
    const paid = await collectedPayment(10_000_000n, wallet());
    const plain = await collectedPayment(10_000_000n);
    const toWallet = await expectJson<RefundAnswer>(await refund(paid, { amount: '2000000' }), 200);
    // A second apart each: the log's order is its entries' time.
    clock.advance(1000);
    const link = await expectJson<RefundAnswer>(await refund(plain, { amount: '3000000' }), 200);
    clock.advance(1000);
    await expectJson(
      await fetch(`${server.url}/v1/merchant/refunds/${link.refund!.refund_id}/cancel`, {
        method: 'POST',
        headers: { 'Api-Key': account.liveKey, 'Merchant-Id': account.merchantId },
      }),
      200,
    );
    // A refused refund leaves no row.
    await expectError(await refund(plain, { amount: '1' }), 400, 'params_validation');

    const owner = await member('owner');
    const page = await expectJson<AuditPage>(
      await callAs(harness(), owner, 'GET', '/v1/dashboard/audit-log', { merchantId: account.merchantId }),
      200,
    );
    const moves = page.data.filter((e) => e.action === 'refundPayment' || e.action === 'cancelRefund').reverse();
    assert.deepEqual(
      moves.map((e) => [e.action, e.actor.kind, e.actor.id, e.target, e.mode, e.ip]),
      [
        ['refundPayment', 'api_key', account.liveKeyId, `id=${paid}`, 'live', null],
        ['refundPayment', 'api_key', account.liveKeyId, `id=${plain}`, 'live', null],
        ['cancelRefund', 'api_key', account.liveKeyId, `id=${link.refund!.refund_id}`, 'live', null],
      ],
    );
    assert.deepEqual(moves[0]!.details, {
      paymentId: paid,
      refundId: toWallet.refund!.refund_id,
      amount: '2000000',
      unit: `caip19/${tusd}`,
      networkFee: FEE.toString(),
      destination: 'paying_wallet',
      state: 'planned',
    });
    assert.equal(moves[1]!.details!.destination, 'claim_link');
    assert.equal(moves[2]!.details!.state, 'cancelled');
    const stored = JSON.stringify(await get().db.knex('audit_log').where({ merchant_id: account.merchantId }));
    assert.ok(!stored.includes(account.liveKey), 'never the secret');
    assert.ok(!stored.includes(toWallet.refund!.destination!), 'no address in the clear');
  });
});
