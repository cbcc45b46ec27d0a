/**
 * On-chain refunds, the request side (settlement/refunds.ts) through the real merchant and gateway APIs: amount
 * bounds, the paying wallet as destination, the one-time claim link (hash only stored, single use, expiry, the
 * chain's own address rules), and the snapshot's `refunded.refunds` with the transaction once sent.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createApp, createRuntime, type Runtime } from '@paygate/server';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Chains } from '../../server/src/chains/index.js';
import { insertClaim } from '../../server/src/db/queries/claims.js';
import { claimIdempotencyKey } from '../../server/src/db/queries/idempotencyKeys.js';
import { IN_FLIGHT_TIMEOUT_MS, requestHash } from '../../server/src/payments/idempotency.js';
import { createPayment, transitionPayment } from '../../server/src/payments/lifecycle.js';
import { insertLedgerEntries, unpaidBalances } from '../../server/src/settlement/ledger.js';
import { CLAIM_TTL_MS, syncRefundedStage } from '../../server/src/settlement/refunds.js';
import { sharedChains } from '../helpers/chain.js';
import { testConfig } from '../helpers/config.js';
import { describeEachDatabase } from '../helpers/db.js';
import { createMerchantAccount, type MerchantAccount } from '../helpers/fixtures.js';
import { listen, type Listening } from '../helpers/http.js';
import { captureLogs } from '../helpers/logs.js';
import { expectError, expectJson } from '../helpers/responses.js';
import { testClock, type TestClock } from '../helpers/runtime.js';

interface Refund {
  refund_id: string;
  amount: { unit: string; value: string };
  chain_caip2: string;
  state: string;
  destination: string | null;
  tx_id: string | null;
  claim_expires_at: string | null;
  claim_url?: string | null;
}
interface RefundAnswer {
  status: string;
  payment_state_version: number;
  refunded: { refunded_at: string; reason: string | null; refunds?: Refund[] } | null;
  refund?: Refund;
}
interface Claim {
  refundId: string;
  amount: { unit: string; value: string; display: { assetSymbol: string; decimals: number } };
  chain: string;
  state: string;
  destination: string | null;
  claimExpiresAt: number;
}

describeEachDatabase('settlement.refund', (get, dialect) => {
  let runtime: Runtime;
  let server: Listening;
  let clock: TestClock;
  let chains: Chains;
  let chain: string;
  let tusd: string;
  let account: MerchantAccount;

  before(async () => {
    chains = await sharedChains();
    clock = testClock();
    runtime = await createRuntime({
      config: testConfig({ PAYGATE_RATE_LIMIT_RPS: '1000000', PAYGATE_RATE_LIMIT_BURST: '1000000' }),
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
    // A merchant per test: every test starts from an unpaid balance of its own payments only.
    account = await createMerchantAccount(runtime);
  });
  after(async () => {
    await server.close();
    await runtime.close();
  });

  /**
   * A succeeded live payment settled in collected mode, as detection leaves it: its `payable` ledger entry, and, when
   * paid through a wallet's confirm, the claim naming the signing account.
   */
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

  const refund = (paymentId: string, body?: unknown, key?: string) =>
    fetch(`${server.url}/v1/merchant/payment/${paymentId}/refund`, {
      method: 'POST',
      headers: {
        'Api-Key': account.liveKey,
        'Merchant-Id': account.merchantId,
        ...(key === undefined ? {} : { 'Idempotency-Key': key }),
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const gateway = (operation: 'lookup' | 'claim', body: unknown) =>
    fetch(`${server.url}/v1/gateway/refund-claims/${operation}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const unpaid = async () =>
    (await unpaidBalances(get().db.knex, { merchantId: account.merchantId, live: true }))[0]?.amount ?? 0n;
  const tokenOf = (answer: RefundAnswer) => new URL(answer.refund!.claim_url!).hash.slice(1);
  const wallet = () => privateKeyToAccount(generatePrivateKey()).address;
  /** The refund's `settlement.move` job as the queue stores it (added in the transaction that planned the refund). */
  const moveJobs = async (refundId: string) =>
    dialect === 'sqlite'
      ? (
          (await get()
            .db.knex('jobs')
            .where({ job_key: `settlement.move:${refundId}` })) as unknown[]
        ).length
      : (
          (await get()
            .db.knex('graphile_worker.jobs')
            .where({ key: `settlement.move:${refundId}` })) as unknown[]
        ).length;

  it('refundPayment: a payment confirmed by a wallet is refunded to the signing account, with no claim link', async () => {
    const buyer = wallet();
    const paymentId = await collectedPayment(10_000_000n, buyer);
    const answer = await expectJson<RefundAnswer>(
      await refund(paymentId, { amount: '4000000', reason: 'Returned' }),
      200,
    );
    assert.equal(answer.refund!.state, 'planned');
    assert.equal(answer.refund!.destination, buyer);
    assert.equal(answer.refund!.claim_url, null);
    assert.deepEqual(answer.refund!.amount, { unit: `caip19/${tusd}`, value: '4000000' });
    assert.equal(answer.refunded!.reason, 'Returned');
    assert.deepEqual(answer.refunded!.refunds, [{ ...answer.refund!, claim_url: undefined }].map(withoutClaimUrl));
    assert.equal(answer.status, 'succeeded');
    assert.equal(answer.payment_state_version, 2, 'a refund sends no event');
    assert.equal(await unpaid(), 6_000_000n, 'the refund reserves its amount at once');
    const row = await get().db.knex('onchain_refunds').where({ id: answer.refund!.refund_id }).first();
    assert.deepEqual([row.state, row.destination, row.claim_token_hash], ['planned', buyer, null]);
    assert.equal(await moveJobs(row.id), 1, 'the executor is asked to send it');
  });

  it('refundPayment: partial refunds up to the settlement amount; more is 400 params_validation, then 409 already_refunded', async () => {
    const paymentId = await collectedPayment(10_000_000n, wallet());
    await expectJson(await refund(paymentId, { amount: '6000000' }), 200);
    clock.advance(1000);
    const tooMuch = await refusal(await refund(paymentId, { amount: '4000001' }), 400, 'params_validation');
    assert.match(tooMuch.message, /exceeds the 4000000 left/);
    const rest = await expectJson<RefundAnswer>(await refund(paymentId), 200);
    assert.equal(rest.refund!.amount.value, '4000000', 'no amount: all that is left');
    assert.deepEqual(
      rest.refunded!.refunds!.map((r) => r.amount.value),
      ['6000000', '4000000'],
    );
    await expectError(await refund(paymentId, { amount: '1' }), 409, 'already_refunded');
    assert.equal(await unpaid(), 0n);
  });

  it('refundPayment: more than the unpaid balance (the rest paid out) is 409 invalid_state, and writes nothing', async () => {
    const paymentId = await collectedPayment(10_000_000n, wallet());
    await insertLedgerEntries(get().db.knex, [
      {
        entryKey: `paid_out:${paymentId}`,
        kind: 'paid_out',
        merchantId: account.merchantId,
        live: true,
        mode: 'collected',
        chain,
        asset: tusd,
        amount: 8_000_000n,
        address: wallet(),
        createdAt: clock.now(),
      },
    ]);
    const error = await refusal(await refund(paymentId, { amount: '3000000' }), 409, 'invalid_state');
    assert.match(error.message, /unpaid balance of 2000000/);
    assert.equal((await get().db.knex('onchain_refunds').where({ payment_id: paymentId })).length, 0);
    await expectJson(await refund(paymentId, { amount: '2000000' }), 200);
  });

  it('refundPayment: an amount on a payment not settled in collected mode is 400 params_validation', async () => {
    const paymentId = await collectedPayment(1n);
    await get().db.knex('ledger_entries').where({ payment_id: paymentId }).delete();
    const error = await refusal(await refund(paymentId, { amount: '1' }), 400, 'params_validation');
    assert.equal(error.param, 'amount');
  });

  it('refundPayment source=excess: none left is 409 invalid_state, not collected or an unknown source is 400, and the balance is untouched', async () => {
    const paymentId = await collectedPayment(3_000_000n, wallet());
    const none = await refusal(await refund(paymentId, { source: 'excess' }), 409, 'invalid_state');
    assert.match(none.message, /no excess left/);
    await expectError(await refund(paymentId, { source: 'merchant' }), 400, 'params_validation');
    assert.equal(await unpaid(), 3_000_000n);
    const direct = await collectedPayment(1n);
    await get().db.knex('ledger_entries').where({ payment_id: direct }).delete();
    const error = await refusal(await refund(direct, { source: 'excess' }), 400, 'params_validation');
    assert.equal(error.param, 'source');
  });

  it('refundPayment: two full refunds at once: one is accepted, the other refused', async () => {
    const paymentId = await collectedPayment(5_000_000n, wallet());
    const answers = await Promise.all([
      refund(paymentId, { amount: '5000000' }),
      refund(paymentId, { amount: '5000000' }),
    ]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409]);
    assert.equal(await unpaid(), 0n);
  });

  it('refundPayment with Idempotency-Key: a retried partial refund replays the first answer and moves no more money', async () => {
    const paymentId = await collectedPayment(10_000_000n, wallet());
    const first = await refund(paymentId, { amount: '3000000' }, 'rfd-key-1');
    assert.equal(first.headers.get('Idempotent-Replayed'), null);
    const answer = await expectJson<RefundAnswer>(first, 200);
    clock.advance(5000);
    const retried = await refund(paymentId, { amount: '3000000' }, 'rfd-key-1');
    assert.equal(retried.headers.get('Idempotent-Replayed'), 'true');
    assert.deepEqual(await expectJson<RefundAnswer>(retried, 200), answer);
    assert.equal(await unpaid(), 7_000_000n, 'one refund reserved');
    assert.equal((await get().db.knex('onchain_refunds').where({ payment_id: paymentId })).length, 1);
    // Another key is another refund.
    await expectJson(await refund(paymentId, { amount: '3000000' }, 'rfd-key-2'), 200);
    assert.equal(await unpaid(), 4_000_000n);
  });

  it('refundPayment with Idempotency-Key: concurrent retries with one key make one refund, every answer the same', async () => {
    const paymentId = await collectedPayment(9_000_000n, wallet());
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => refund(paymentId, { amount: '1000000' }, 'rfd-concurrent')),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(6).fill(200),
    );
    const bodies = await Promise.all(answers.map((a) => a.json() as Promise<RefundAnswer>));
    assert.equal(new Set(bodies.map((b) => b.refund!.refund_id)).size, 1);
    assert.equal(answers.filter((a) => a.headers.get('Idempotent-Replayed') === 'true').length, 5);
    assert.equal(await unpaid(), 8_000_000n);
    assert.equal((await get().db.knex('onchain_refunds').where({ payment_id: paymentId })).length, 1);
  });

  it('refundPayment with Idempotency-Key: another body, another payment or a createPayment key is 409 idempotency_conflict', async () => {
    const paymentId = await collectedPayment(5_000_000n, wallet());
    const other = await collectedPayment(5_000_000n, wallet());
    await expectJson(await refund(paymentId, { amount: '1000000' }, 'rfd-conflict'), 200);
    await expectError(await refund(paymentId, { amount: '2000000' }, 'rfd-conflict'), 409, 'idempotency_conflict');
    await expectError(await refund(other, { amount: '1000000' }, 'rfd-conflict'), 409, 'idempotency_conflict');
    const created = await fetch(`${server.url}/v1/merchant/payment`, {
      method: 'POST',
      headers: {
        'Api-Key': account.liveKey,
        'Merchant-Id': account.merchantId,
        'Content-Type': 'application/json',
        'Idempotency-Key': 'create-then-refund',
      },
      body: JSON.stringify({ amount: { unit: 'iso4217/USD', value: '100' }, referenceId: 'o-1' }),
    });
    await expectJson(created, 201);
    await expectError(await refund(other, {}, 'create-then-refund'), 409, 'idempotency_conflict');
    assert.equal(await unpaid(), 9_000_000n, 'only the first refund moved money');
  });

  it('refundPayment with Idempotency-Key: a refused refund stores nothing, so the key works once the request is fixed', async () => {
    const paymentId = await collectedPayment(2_000_000n, wallet());
    await expectError(await refund(paymentId, { amount: '2000001' }, 'rfd-fix'), 400, 'params_validation');
    await expectJson(await refund(paymentId, { amount: '2000000' }, 'rfd-fix'), 200);
    const replay = await refund(paymentId, { amount: '2000000' }, 'rfd-fix');
    assert.equal(replay.status, 200, 'replayed, not already_refunded');
    assert.equal(replay.headers.get('Idempotent-Replayed'), 'true');
  });

  it('refundPayment with Idempotency-Key: a key over 255 characters is 400 params_validation, and nothing is refunded', async () => {
    const paymentId = await collectedPayment(1_000_000n, wallet());
    await expectError(await refund(paymentId, {}, 'k'.repeat(256)), 400, 'params_validation');
    assert.equal(await unpaid(), 1_000_000n);
  });

  it('refundPayment with Idempotency-Key: the in-flight rule: a key held by a running request is 409, taken over after 60 s', async () => {
    const paymentId = await collectedPayment(1_000_000n, wallet());
    const body = { amount: '400000' };
    // An in-flight row, as a server before answered keys left while its request ran (payments/idempotency.ts).
    await claimIdempotencyKey(get().db.knex, {
      merchant_id: account.merchantId,
      live: true,
      key: 'rfd-in-flight',
      request_hash: requestHash({ operation: 'refundPayment', paymentId, body }),
      created_at: clock.now(),
    });
    const busy = await refusal(await refund(paymentId, body, 'rfd-in-flight'), 409, 'idempotency_conflict');
    assert.match(busy.message, /still in progress/);
    assert.equal(await unpaid(), 1_000_000n);
    clock.advance(IN_FLIGHT_TIMEOUT_MS);
    await expectJson(await refund(paymentId, body, 'rfd-in-flight'), 200);
    assert.equal(await unpaid(), 600_000n);
  });

  it('refundPayment with Idempotency-Key: a claim link is replayed whole, and stored only sealed', async () => {
    const paymentId = await collectedPayment(3_000_000n);
    const answer = await expectJson<RefundAnswer>(await refund(paymentId, {}, 'rfd-link'), 200);
    const token = tokenOf(answer);
    const stored = await get().db.knex('idempotency_keys').where({ key: 'rfd-link' }).first();
    assert.ok(!String(stored.response_body).includes(token), 'the token is not stored in clear');
    const replayed = await expectJson<RefundAnswer>(await refund(paymentId, {}, 'rfd-link'), 200);
    assert.equal(replayed.refund!.claim_url, answer.refund!.claim_url);
    await expectJson(await gateway('lookup', { token }), 200);
  });

  it('refundPayment with Idempotency-Key: an off-platform refund (direct mode) retried replays its record', async () => {
    const paymentId = await collectedPayment(1n);
    await get().db.knex('ledger_entries').where({ payment_id: paymentId }).delete();
    const answer = await expectJson<RefundAnswer>(await refund(paymentId, { reason: 'Returned' }, 'rfd-direct'), 200);
    const again = await refund(paymentId, { reason: 'Returned' }, 'rfd-direct');
    assert.equal(again.headers.get('Idempotent-Replayed'), 'true');
    assert.deepEqual(await expectJson<RefundAnswer>(again, 200), answer);
    await expectError(await refund(paymentId, { reason: 'Returned' }), 409, 'already_refunded');
  });

  it('claim link: a plain transfer gets a one-time link (hash only stored); lookup, then claim with an address of the chain', async () => {
    const paymentId = await collectedPayment(7_000_000n);
    const answer = await expectJson<RefundAnswer>(await refund(paymentId), 200);
    assert.equal(answer.refund!.state, 'awaiting_claim');
    assert.equal(answer.refund!.destination, null);
    assert.equal(answer.refund!.claim_expires_at, new Date(clock.now() + CLAIM_TTL_MS).toISOString());
    const base = runtime.config.publicBaseUrl.replace(/\/+$/, '');
    assert.ok(answer.refund!.claim_url!.startsWith(`${base}/refund#`));
    const token = tokenOf(answer);
    const row = await get().db.knex('onchain_refunds').where({ id: answer.refund!.refund_id }).first();
    assert.equal(row.claim_token_hash, createHash('sha256').update(token).digest('hex'));
    assert.ok(!JSON.stringify(row).includes(token), 'the token itself is stored nowhere');
    assert.equal(await moveJobs(row.id), 0, 'nothing to send before the buyer names an address');
    const read = await expectJson<RefundAnswer>(
      await fetch(`${server.url}/v1/merchant/payment/${paymentId}`, {
        headers: { 'Api-Key': account.liveKey, 'Merchant-Id': account.merchantId },
      }),
      200,
    );
    assert.ok(!JSON.stringify(read).includes(token), 'the link is shown once, in the refund answer only');

    const looked = await expectJson<Claim>(await gateway('lookup', { token }), 200);
    assert.equal(looked.state, 'awaiting_claim');
    assert.equal(looked.chain, chain);
    assert.equal(looked.amount.value, '7000000');
    assert.equal(looked.amount.display.assetSymbol, 'TUSD');

    const buyer = wallet();
    const claimed = await expectJson<Claim>(await gateway('claim', { token, address: buyer.toLowerCase() }), 200);
    assert.equal(claimed.state, 'planned');
    assert.equal(claimed.destination, getAddress(buyer), 'stored in the chain canonical form');
    assert.equal(await moveJobs(answer.refund!.refund_id), 1, 'claimed: the executor is asked to send it');
    const snapshot = await expectJson<RefundAnswer>(
      await fetch(`${server.url}/v1/merchant/payment/${paymentId}`, {
        headers: { 'Api-Key': account.liveKey, 'Merchant-Id': account.merchantId },
      }),
      200,
    );
    assert.deepEqual(
      snapshot.refunded!.refunds!.map((r) => [r.state, r.destination]),
      [['planned', getAddress(buyer)]],
    );

    // Single use: the link answers like an unknown one from now on.
    await expectError(await gateway('claim', { token, address: wallet() }), 404, 'invalid_params');
    await expectError(await gateway('lookup', { token }), 404, 'invalid_params');
    await expectError(await gateway('lookup', { token: 'not-a-token' }), 404, 'invalid_params');
  });

  it('claim link: an address of another chain is 400 params_validation, and the link stays usable', async () => {
    const paymentId = await collectedPayment(1_000_000n);
    const token = tokenOf(await expectJson<RefundAnswer>(await refund(paymentId), 200));
    const solanaAddress = chains.local!.solana.feePayer.address;
    const error = await refusal(await gateway('claim', { token, address: solanaAddress }), 400, 'params_validation');
    assert.equal(error.param, 'address');
    assert.match(error.message, new RegExp(`sent on ${chain}`));
    await expectError(await gateway('claim', { token, address: '0x1234' }), 400, 'params_validation');
    assert.equal((await expectJson<Claim>(await gateway('lookup', { token }), 200)).state, 'awaiting_claim');
  });

  it('claim link: expires 30 days after the refund (business clock)', async () => {
    const paymentId = await collectedPayment(1_000_000n);
    const token = tokenOf(await expectJson<RefundAnswer>(await refund(paymentId), 200));
    clock.advance(CLAIM_TTL_MS - 1);
    await expectJson(await gateway('lookup', { token }), 200);
    clock.advance(1);
    await expectError(await gateway('lookup', { token }), 404, 'invalid_params');
    await expectError(await gateway('claim', { token, address: wallet() }), 404, 'invalid_params');
  });

  const cancel = (refundId: string, key = account.liveKey) =>
    fetch(`${server.url}/v1/merchant/refunds/${refundId}/cancel`, {
      method: 'POST',
      headers: { 'Api-Key': key, 'Merchant-Id': account.merchantId },
    });
  const released = async (refundId: string) =>
    (await get().db.knex('ledger_entries').where({ refund_id: refundId, kind: 'refund_released' })).length;

  it('claim link expiry: the sweep after 30 days gives the reservation back once, and the link says it expired', async () => {
    const paymentId = await collectedPayment(5_000_000n);
    const answer = await expectJson<RefundAnswer>(await refund(paymentId, { amount: '3000000' }), 200);
    const refundId = answer.refund!.refund_id;
    const token = tokenOf(answer);
    assert.equal(await unpaid(), 2_000_000n);
    clock.advance(CLAIM_TTL_MS - 1);
    await runtime.sweep();
    assert.equal(await unpaid(), 2_000_000n, 'still reserved one millisecond before the end');
    clock.advance(1);
    await runtime.sweep();
    assert.equal(await unpaid(), 5_000_000n, 'the reservation is back');
    assert.equal(await released(refundId), 1);
    await runtime.sweep();
    assert.equal(await released(refundId), 1, 'given back once');
    assert.equal(await unpaid(), 5_000_000n);
    const error = await refusal(await gateway('lookup', { token }), 404, 'invalid_params');
    assert.match(error.message, /expired on .*the refund was not sent/);
    await expectError(await gateway('claim', { token, address: wallet() }), 404, 'invalid_params');
    const read = await expectJson<RefundAnswer>(
      await fetch(`${server.url}/v1/merchant/payment/${paymentId}`, {
        headers: { 'Api-Key': account.liveKey, 'Merchant-Id': account.merchantId },
      }),
      200,
    );
    assert.deepEqual(
      read.refunded!.refunds!.map((r) => r.state),
      ['expired'],
    );
    // What the link reserved is refundable again, in full.
    const again = await expectJson<RefundAnswer>(await refund(paymentId), 200);
    assert.equal(again.refund!.amount.value, '5000000');
    assert.equal(await unpaid(), 0n);
  });

  it('cancelRefund: an unclaimed link ends cancelled and its reservation comes back once; a second cancel is 409 invalid_state', async () => {
    const paymentId = await collectedPayment(4_000_000n);
    const answer = await expectJson<RefundAnswer>(await refund(paymentId), 200);
    const refundId = answer.refund!.refund_id;
    await expectError(await cancel(refundId, account.testKey), 404, 'invalid_params');
    await expectError(await cancel('rfd_unknown'), 404, 'invalid_params');
    const ended = await expectJson<Refund>(await cancel(refundId), 200);
    assert.deepEqual([ended.refund_id, ended.state, ended.tx_id], [refundId, 'cancelled', null]);
    assert.equal(await unpaid(), 4_000_000n);
    const again = await refusal(await cancel(refundId), 409, 'invalid_state');
    assert.match(again.message, /is cancelled, not awaiting a claim/);
    assert.equal(await released(refundId), 1);
    const error = await refusal(await gateway('lookup', { token: tokenOf(answer) }), 404, 'invalid_params');
    assert.match(error.message, /cancelled this refund link/);
    clock.advance(CLAIM_TTL_MS);
    await runtime.sweep();
    assert.equal(await released(refundId), 1, 'the expiry sweep does not give it back again');
    assert.equal(await unpaid(), 4_000_000n);
  });

  it('cancelRefund: a refund going to the paying wallet (no link) is 409 invalid_state and stays reserved', async () => {
    const paymentId = await collectedPayment(1_000_000n, wallet());
    const answer = await expectJson<RefundAnswer>(await refund(paymentId), 200);
    await expectError(await cancel(answer.refund!.refund_id), 409, 'invalid_state');
    assert.equal(await unpaid(), 0n);
  });

  it('cancelRefund racing a claim: exactly one wins, and the reservation is given back only if the cancel did', async () => {
    const paymentId = await collectedPayment(2_000_000n);
    const answer = await expectJson<RefundAnswer>(await refund(paymentId), 200);
    const refundId = answer.refund!.refund_id;
    const [claim, cancelled] = await Promise.all([
      gateway('claim', { token: tokenOf(answer), address: wallet() }),
      cancel(refundId),
    ]);
    assert.deepEqual([claim.status, cancelled.status].sort(), [200, claim.status === 200 ? 409 : 404].sort());
    const claimed = claim.status === 200;
    const row = await get().db.knex('onchain_refunds').where({ id: refundId }).first();
    assert.equal(row.state, claimed ? 'planned' : 'cancelled');
    assert.equal(await released(refundId), claimed ? 0 : 1);
    assert.equal(await unpaid(), claimed ? 0n : 2_000_000n);
  });

  it('snapshot: refunded.refunds carries the transaction once the executor records it sent', async () => {
    const paymentId = await collectedPayment(2_000_000n, wallet());
    const answer = await expectJson<RefundAnswer>(await refund(paymentId), 200);
    // What the move executor does when it sends a planned refund (another part of §22), then the stage is synced.
    await get()
      .db.knex('onchain_refunds')
      .where({ id: answer.refund!.refund_id })
      .update({ state: 'sent', tx_id: '0xfeed' });
    const synced = await syncRefundedStage(runtime, paymentId);
    assert.deepEqual(
      synced.refunded!.refunds!.map((r) => [r.state, r.tx_id]),
      [['sent', '0xfeed']],
    );
    assert.equal(synced.payment_state_version, 2);
  });
});

/** expectError's checks, answering the whole body (its `param` too). */
async function refusal(res: Response, status: number, code: string): Promise<{ message: string; param?: string }> {
  const body = (await res.clone().json()) as { message: string; param?: string };
  await expectError(res, status, code);
  return body;
}

function withoutClaimUrl(r: Refund): Refund {
  const { claim_url: _omitted, ...rest } = r;
  return rest;
}
