/**
 * GET /v1/gateway/payment/{id}/deposit (docs/decisions.md §22.2): a collected-mode payment's deposit options, one per
 * chain and pegged deposit asset, with what was received and what is left; every answer is validated against the
 * contract by the harness.
 */
import assert from 'node:assert/strict';
import { newId } from '../../server/src/ids.js';
import type { components } from '../../server/src/generated/gateway.js';
import { startCheckoutHarness, type CheckoutHarness } from './checkout.js';
import { expectError, expectJson, unknownPayment } from './harness.js';

type DepositAnswer = components['schemas']['GetDepositOptionsResponse'];

describe('gateway getDepositOptions', () => {
  let h: CheckoutHarness;
  before(async () => {
    h = await startCheckoutHarness();
    await h.runtime.db.knex('merchants').where({ id: h.account.merchantId }).update({ settlement_mode: 'collected' });
  });
  after(() => h.close());

  const path = (id: string) => `/v1/gateway/payment/${id}/deposit`;
  const deposits = async (id: string) => expectJson<DepositAnswer>(await h.call('GET', path(id)), 200);
  const addressOf = async (paymentId: string, chain: string): Promise<string> =>
    (await h.runtime.db.knex('deposit_addresses').where({ payment_id: paymentId, chain_caip2: chain }).first())
      .address as string;
  const transfer = (paymentId: string, chain: string, asset: string, address: string, amount: bigint, state = 'seen') =>
    h.runtime.db.knex('deposit_transfers').insert({
      id: newId.depositTransfer(),
      chain_caip2: chain,
      asset_caip19: asset,
      address,
      payment_id: paymentId,
      tx_id: `tx_${Math.random()}`,
      position: 0,
      from_address: null,
      amount: amount.toString(),
      block_number: 1,
      block_hash: null,
      block_time: null,
      state,
      detected_at: h.clock.now(),
    });

  it('lists TUSD on each local chain at the deposit address, with exact URIs and nothing received yet', async () => {
    const paymentId = await h.createPayment();
    const answer = await deposits(paymentId);
    const evm = await addressOf(paymentId, 'eip155:31337');
    const solana = await addressOf(paymentId, h.solana.caip2);
    const mint = h.solana.mints.tusd.address;
    assert.deepEqual(
      answer.deposits.map((d) => [
        d.chain,
        d.address,
        d.amount.unit,
        d.amount.value,
        d.received.value,
        d.remaining.value,
      ]),
      [
        ['eip155:31337', evm, `caip19/${h.tusd}`, '12500000', '0', '12500000'],
        [h.solana.caip2, solana, `caip19/${h.solanaTusd}`, '12500000', '0', '12500000'],
      ],
    );
    assert.equal(answer.deposits[0]!.uri, `ethereum:${h.local.testUsd}@31337/transfer?address=${evm}&uint256=12500000`);
    assert.equal(
      answer.deposits[1]!.uri,
      `solana:${solana}?amount=12.5&spl-token=${mint}&label=${encodeURIComponent('Test merchant')}`,
    );
    for (const d of answer.deposits) {
      assert.equal(d.expiresAt, null);
      assert.equal(d.amount.display.assetSymbol, 'TUSD');
      assert.equal(d.amount.display.decimals, 6);
    }
    // The same address on every call.
    assert.deepEqual((await deposits(paymentId)).deposits, answer.deposits);
  });

  it('counts received transfers in the asset (not reorged ones) and asks for what is left', async () => {
    const paymentId = await h.createPayment();
    await deposits(paymentId);
    const evm = await addressOf(paymentId, 'eip155:31337');
    await transfer(paymentId, 'eip155:31337', h.tusd, evm, 5_000_000n);
    await transfer(paymentId, 'eip155:31337', h.tusd, evm, 1_000_000n, 'final');
    await transfer(paymentId, 'eip155:31337', h.tusd, evm, 4_000_000n, 'reorged');
    const [entry, other] = (await deposits(paymentId)).deposits;
    assert.equal(entry!.received.value, '6000000');
    assert.equal(entry!.remaining.value, '6500000');
    assert.equal(entry!.uri, `ethereum:${h.local.testUsd}@31337/transfer?address=${evm}&uint256=6500000`);
    // Another chain's asset is untouched.
    assert.equal(other!.received.value, '0');
    assert.equal(other!.remaining.value, '12500000');
  });

  it('an overpaid asset has nothing left, never a negative amount', async () => {
    const paymentId = await h.createPayment();
    await deposits(paymentId);
    const evm = await addressOf(paymentId, 'eip155:31337');
    await transfer(paymentId, 'eip155:31337', h.tusd, evm, 13_000_000n);
    const [entry] = (await deposits(paymentId)).deposits;
    assert.equal(entry!.received.value, '13000000');
    assert.equal(entry!.remaining.value, '0');
  });

  it('answers 409 invalid_state for a payment created in direct mode, even after a switch to collected, and allocates nothing', async () => {
    const knex = h.runtime.db.knex;
    await knex('merchants').where({ id: h.account.merchantId }).update({ settlement_mode: 'direct' });
    let paymentId: string;
    try {
      paymentId = await h.createPayment();
    } finally {
      await knex('merchants').where({ id: h.account.merchantId }).update({ settlement_mode: 'collected' });
    }
    // The payment's own mode decides (decisions §22.14), not the merchant's current one.
    const message = await expectError(await h.call('GET', path(paymentId)), 409, 'invalid_state');
    assert.match(message, /directly/);
    assert.equal(await knex('deposit_accounts').where({ payment_id: paymentId }).first(), undefined);
  });

  it('answers 409 invalid_state once cancelled, 410 payment_expired once expired, 404 for an unknown id', async () => {
    const cancelled = await h.createPayment();
    await expectJson(await h.call('POST', `/v1/gateway/payment/${cancelled}/cancel`), 200);
    await expectError(await h.call('GET', path(cancelled)), 409, 'invalid_state');
    const expiring = await h.createPayment({ expiresInSeconds: 60 });
    h.clock.advance(61_000);
    await expectError(await h.call('GET', path(expiring)), 410, 'payment_expired');
    await expectError(await h.call('GET', path(unknownPayment)), 404, 'payment_not_found');
  });

  it('takes the gateway credentials: none is 401, the other mode is 403, the public app id works', async () => {
    const paymentId = await h.createPayment();
    await expectError(
      await h.call('GET', path(paymentId), { headers: { 'Api-Key': null } }),
      401,
      'missing_auth_headers',
    );
    await expectError(
      await h.call('GET', path(paymentId), { headers: { 'Api-Key': h.wallet.liveKey } }),
      403,
      'forbidden',
    );
    const answer = await expectJson<DepositAnswer>(
      await h.call('GET', path(paymentId), {
        headers: { 'Api-Key': null, 'App-Id': h.wallet.testApp, 'Client-Id': 'checkout-test' },
      }),
      200,
    );
    assert.equal(answer.deposits.length, 2);
  });
});
