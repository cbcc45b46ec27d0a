import assert from 'node:assert/strict';
import { concat, encodeFunctionData, getAddress, parseAbi, parseSignature, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { screeningListOf } from '../../server/src/checkout/screening.js';
import { sharedChains, useChainSnapshots } from '../helpers/chain.js';
import { expectError, expectJson } from './harness.js';
import {
  SETTLEMENT,
  sendAction,
  signAction,
  startCheckoutHarness,
  withDirectTusd,
  type Buyer,
  type CheckoutHarness,
  type PaymentOption,
  type StatusAnswer,
} from './checkout.js';

const token = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
]);

function sendParams(option: PaymentOption): { to: Hex; data: Hex } {
  const action = option.actions[0]!;
  assert.ok(action.type === 'walletRpc' && action.data.method === 'eth_sendTransaction');
  return action.data.params[0] as { to: Hex; data: Hex };
}

describe('gateway confirm: attacks on gasless options', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  before(async () => {
    h = await startCheckoutHarness();
  });
  after(() => h.close());

  it('refuses a signature by another key (params_validation) and leaves the payment payable', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const impostor = privateKeyToAccount(generatePrivateKey());
    const forged = await signAction({ ...buyer, account: impostor }, option);
    await expectError(await h.confirm(paymentId, { optionId: option.id, results: [forged] }), 400, 'params_validation');
    const status = await expectJson<StatusAnswer>(await h.call('GET', `/v1/gateway/payment/${paymentId}/status`), 200);
    assert.equal(status.status, 'requires_action');
  });

  it('refuses a tampered or foreign option id', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const other = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const signature = await signAction(buyer, option);
    const [payload, mac] = option.id.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload.slice(4), 'base64url').toString()) as Record<string, unknown>;
    const cheaper = `opt_${Buffer.from(JSON.stringify({ ...claims, n: '1' })).toString('base64url')}.${mac}`;
    for (const optionId of [
      cheaper,
      `${option.id}x`,
      'opt_AAAA.BBBB',
      // The MAC's last character with another data bit, and with only a spare bit changed: both are foreign.
      respellLastChar(option.id, 4),
      respellLastChar(option.id, 1),
    ]) {
      await expectError(await h.confirm(paymentId, { optionId, results: [signature] }), 400, 'params_validation');
    }
    // A genuine option of another payment is not an option of this one.
    await expectError(await h.confirm(other, { optionId: option.id, results: [signature] }), 400, 'params_validation');
  });

  it('refuses results that do not match the actions in length or form', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const signature = await signAction(buyer, option);
    const tooMany = await expectError(
      await h.confirm(paymentId, { optionId: option.id, results: [signature, signature] }),
      400,
      'params_validation',
    );
    assert.match(tooMany, /2 items but the option has 1 action/);
    await expectError(
      await h.confirm(paymentId, { optionId: option.id, results: [`0x${'ab'.repeat(32)}`] }),
      400,
      'params_validation',
    );
  });

  it('a relay front-run by someone else still completes the payment with their transaction', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const signature = await signAction(buyer, option);
    await expectJson(await h.confirm(paymentId, { optionId: option.id, results: [signature] }), 200);

    // A watcher of the mempool submits the buyer's authorization before the relay job runs.
    const typed = JSON.parse((option.actions[0] as { data: { params: string[] } }).data.params[1]!) as {
      message: { from: Hex; to: Hex; value: string; validAfter: string; validBefore: string; nonce: Hex };
    };
    const { v, r, s, yParity } = parseSignature(signature);
    const m = typed.message;
    const frontRunner = await h.buyer(0n);
    const theirs = await frontRunner.wallet.writeContract({
      account: frontRunner.account,
      address: h.local.testUsd,
      abi: token,
      functionName: 'transferWithAuthorization',
      args: [
        m.from,
        m.to,
        BigInt(m.value),
        BigInt(m.validAfter),
        BigInt(m.validBefore),
        m.nonce,
        Number(v ?? BigInt(yParity + 27)),
        r,
        s,
      ],
    });
    const relayer = h.local.clients.relayer.account.address;
    const relayerSent = await h.local.clients.public.getTransactionCount({ address: relayer });

    const status = await h.settle(paymentId, 'succeeded');
    assert.equal(status.info?.txId, theirs);
    // The relayer saw the authorization used and sent nothing.
    assert.equal(await h.local.clients.public.getTransactionCount({ address: relayer }), relayerSent);
  });

  it('20 concurrent confirms of one payment: one moves it to processing, the relayer submits once', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const body = { optionId: option.id, results: [await signAction(buyer, option)] };
    const relayer = h.local.clients.relayer.account.address;
    const relayerSent = await h.local.clients.public.getTransactionCount({ address: relayer });
    const answers = await Promise.all(Array.from({ length: 20 }, () => h.confirm(paymentId, body)));
    for (const answer of answers) {
      assert.equal((await expectJson<StatusAnswer>(answer, 200)).status, 'processing');
    }
    const events = await h.runtime.db.knex('events').where({ payment_id: paymentId, type: 'payment.processing' });
    assert.equal(events.length, 1);
    const status = await h.settle(paymentId, 'succeeded');
    assert.equal(status.status, 'succeeded');
    assert.equal(await h.local.clients.public.getTransactionCount({ address: relayer }), relayerSent + 1);
  });

  it('refuses a different confirm once the payment is processing (invalid_state)', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const first = await h.optionFor(paymentId, buyer, h.tusd);
    const second = await h.optionFor(paymentId, buyer, h.tusd);
    await expectJson(
      await h.confirm(paymentId, { optionId: first.id, results: [await signAction(buyer, first)] }),
      200,
    );
    await expectError(
      await h.confirm(paymentId, { optionId: second.id, results: [await signAction(buyer, second)] }),
      409,
      'invalid_state',
    );
  });

  it('refuses an account on the screening list (sanctioned_user) and fails the payment', async () => {
    const buyer = await h.buyer();
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'screening-')), 'list.txt');
    writeFileSync(file, `# test list\n${buyer.account.address.toLowerCase()}\n`);
    const screened = await startCheckoutHarness({ config: { PAYGATE_SCREENING_FILE: file } });
    try {
      const paymentId = await screened.createPayment();
      // Options refuse a listed account too (gateway.getPaymentOptions.screening.test.ts): this option was issued
      // before the account was listed (a list changes with a restart, which an option outlives).
      const checkout = screened.runtime.checkout!;
      const list = checkout.screening;
      checkout.screening = screeningListOf('');
      const option = await screened.optionFor(paymentId, buyer, screened.tusd);
      checkout.screening = list;
      const signature = await signAction(buyer, option);
      await expectError(
        await screened.confirm(paymentId, { optionId: option.id, results: [signature] }),
        403,
        'sanctioned_user',
      );
      const status = await expectJson<StatusAnswer>(
        await screened.call('GET', `/v1/gateway/payment/${paymentId}/status`),
        200,
      );
      assert.equal(status.status, 'failed');
      // WalletConnect Pay's code for it (docs/decisions.md §28).
      assert.equal(status.failureCode, 'declined_user');
    } finally {
      await screened.close();
    }
  });
});

describe('gateway confirm: attacks on direct options', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  before(async () => {
    h = await startCheckoutHarness({ chains: withDirectTusd(await sharedChains()) });
  });
  after(() => h.close());

  async function sendRaw(buyer: Buyer, to: Hex, data: Hex): Promise<Hex> {
    return buyer.wallet.sendTransaction({ account: buyer.account, to, data });
  }

  it('refuses a transfer to the wrong recipient, of too little, or of the wrong token', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const issued = sendParams(option);
    const reference = `0x${issued.data.slice(-64)}` as Hex;
    const amount = BigInt(option.amount.value);
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    const transfer = (to: Hex, value: bigint) =>
      concat([encodeFunctionData({ abi: token, functionName: 'transfer', args: [to, value] }), reference]);
    const wrongRecipient = await sendRaw(buyer, h.local.testUsd, transfer(stranger, amount));
    const tooLittle = await sendRaw(buyer, h.local.testUsd, transfer(getAddress(SETTLEMENT), amount - 1n));
    // The issued calldata sent anywhere but the token (here: an account with no code) moves no TUSD.
    const wrongToken = await sendRaw(buyer, stranger, issued.data);
    for (const hash of [wrongRecipient, tooLittle, wrongToken]) {
      await expectError(await h.confirm(paymentId, { optionId: option.id, results: [hash] }), 400, 'params_validation');
    }
    const status = await expectJson<StatusAnswer>(await h.call('GET', `/v1/gateway/payment/${paymentId}/status`), 200);
    assert.equal(status.status, 'requires_action');
  });

  it("refuses a stranger's earlier transfer to the same merchant, and a hash that already paid another payment", async () => {
    const stranger = await h.buyer();
    const earlier = await sendRaw(
      stranger,
      h.local.testUsd,
      encodeFunctionData({ abi: token, functionName: 'transfer', args: [getAddress(SETTLEMENT), 12_500_000n] }),
    );
    const buyer = await h.buyer();
    const first = await h.createPayment();
    const option = await h.optionFor(first, buyer, h.tusd);
    await expectError(await h.confirm(first, { optionId: option.id, results: [earlier] }), 400, 'params_validation');

    const paid = await sendAction(buyer, option);
    await expectJson(await h.confirm(first, { optionId: option.id, results: [paid] }), 200);
    const second = await h.createPayment();
    const secondOption = await h.optionFor(second, buyer, h.tusd);
    await expectError(
      await h.confirm(second, { optionId: secondOption.id, results: [paid] }),
      400,
      'params_validation',
    );
  });

  it('a quote that expired by the clock is refused with quote_expired', async () => {
    const buyer = await h.buyer(0n);
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, 'eip155:31337/slip44:60');
    assert.ok(option.expiresAt !== null && option.expiresAt !== undefined);
    h.clock.set(option.expiresAt * 1000);
    const hash = `0x${'11'.repeat(32)}`;
    await expectError(await h.confirm(paymentId, { optionId: option.id, results: [hash] }), 409, 'quote_expired');
    await expectError(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/fetch`, { body: { optionId: option.id, data: 'x' } }),
      409,
      'quote_expired',
    );
  });
});

describe('gateway confirm: a reorg before depth', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  before(async () => {
    h = await startCheckoutHarness({
      chains: withDirectTusd(await sharedChains(), { confirmations: 3 }),
      checkout: { evm: { settle: { droppedAfterMs: 60_000, recheckMs: 1_000 } } },
    });
  });
  after(() => h.close());

  it('a transfer dropped by a reorg before its depth never succeeds: the payment fails as dropped', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const beforeTransfer = await h.local.test.snapshot();
    const hash = await sendAction(buyer, option);
    await expectJson(await h.confirm(paymentId, { optionId: option.id, results: [hash] }), 200);
    await h.drain();
    let status = await expectJson<StatusAnswer>(await h.call('GET', `/v1/gateway/payment/${paymentId}/status`), 200);
    assert.equal(status.status, 'processing');

    // The block that held the transfer is replaced by a longer chain without it.
    await h.local.test.revert({ id: beforeTransfer });
    await h.local.test.mine({ blocks: 4 });
    h.clock.advance(1_000);
    await h.drain();
    status = await expectJson<StatusAnswer>(await h.call('GET', `/v1/gateway/payment/${paymentId}/status`), 200);
    assert.equal(status.status, 'processing');
    h.clock.advance(61_000);
    await h.drain();
    status = await expectJson<StatusAnswer>(await h.call('GET', `/v1/gateway/payment/${paymentId}/status`), 200);
    assert.equal(status.status, 'failed');
    const row = await h.runtime.db.knex('payments').where({ id: paymentId }).first();
    assert.match(String(row.failed), /dropped/);
  });
});

const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** `text` with its last base64url character's 6-bit value XORed with `bits`. */
function respellLastChar(text: string, bits: number): string {
  const index = BASE64URL_ALPHABET.indexOf(text.slice(-1));
  return text.slice(0, -1) + BASE64URL_ALPHABET[index ^ bits];
}
