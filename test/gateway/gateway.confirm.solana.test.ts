import assert from 'node:assert/strict';
import {
  appendTransactionMessageInstruction,
  compileTransaction,
  createNoopSigner,
  decompileTransactionMessage,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  generateKeyPairSigner,
  partiallySignTransaction,
  signBytes,
  type Address,
  type KeyPairSigner,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { associatedTokenAccount, paymentTransaction } from '../../server/src/chains/solana/transfer.js';
import { verifyOption } from '../../server/src/checkout/optionToken.js';
import { expectError, expectJson } from './harness.js';
import {
  startCheckoutHarness,
  type CheckoutHarness,
  type PaymentOption,
  type SolanaBuyer,
  type StatusAnswer,
} from './checkout.js';

describe('gateway confirm: Solana payments on the local chain', () => {
  let h: CheckoutHarness;
  before(async () => {
    h = await startCheckoutHarness();
  });
  after(() => h.close());

  const status = async (id: string) =>
    (await expectJson<StatusAnswer>(await h.call('GET', `/v1/gateway/payment/${id}/status`), 200)).status;

  async function tokenBalance(owner: Address): Promise<bigint> {
    const ata = await associatedTokenAccount(owner, h.solana.mints.tusd.address);
    const rpc = h.chains.solana[0]!.rpc;
    const account = await rpc.getAccountInfo(ata, { encoding: 'base64' }).send();
    return account.value ? Buffer.from(account.value.data[0], 'base64').readBigUInt64LE(64) : 0n;
  }

  async function fetchTransaction(paymentId: string, option: PaymentOption): Promise<Transaction> {
    const action = option.actions[0]!;
    assert.equal(action.type, 'build');
    const fetched = await expectJson<{ actions: { type: string; data: { method: string; params: unknown[] } }[] }>(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/fetch`, {
        body: { optionId: option.id, data: action.type === 'build' ? action.data.data : '' },
      }),
      200,
    );
    assert.equal(fetched.actions.length, 1);
    assert.equal(fetched.actions[0]!.data.method, 'solana_signTransaction');
    const { transaction } = fetched.actions[0]!.data.params[0] as { transaction: string };
    return getTransactionDecoder().decode(Buffer.from(transaction, 'base64'));
  }

  /** What a wallet does with solana_signTransaction: sign its own part, never broadcast. */
  async function walletSigns(buyer: KeyPairSigner, tx: Transaction): Promise<string> {
    return getBase64EncodedWireTransaction(await partiallySignTransaction([buyer.keyPair], tx));
  }

  async function ready(): Promise<{ buyer: SolanaBuyer; paymentId: string; option: PaymentOption }> {
    const buyer = await h.solanaBuyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer as never, h.solanaTusd);
    return { buyer, paymentId, option };
  }

  it('options, fetch, the wallet signs, confirm broadcasts: processing, then succeeded, events field by field', async () => {
    const { buyer, paymentId, option } = await ready();
    assert.equal(option.amount.value, '12500000');
    assert.equal(option.expiresAt, null);
    const merchantBefore = await tokenBalance(h.solana.settlementOwner.address);
    const signed = await walletSigns(buyer.signer, await fetchTransaction(paymentId, option));

    const accepted = await expectJson<StatusAnswer>(
      await h.confirm(paymentId, { optionId: option.id, results: [signed] }),
      200,
    );
    assert.equal(accepted.status, 'processing');
    // The service broadcast it: the buyer paid without holding any SOL.
    assert.equal(await tokenBalance(buyer.signer.address), 100_000_000n - 12_500_000n);
    assert.equal(await tokenBalance(h.solana.settlementOwner.address), merchantBefore + 12_500_000n);

    const final = await h.settle(paymentId, 'succeeded');
    assert.equal(final.status, 'succeeded');
    const signature = getTransactionDecoder().decode(Buffer.from(signed, 'base64'));
    assert.ok(signature);
    assert.match(final.info!.txId, /^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
    const events = (await h.runtime.db.knex('events').where({ payment_id: paymentId }).orderBy('state_version')).map(
      (e: { payload: string }) => JSON.parse(e.payload) as { type: string; data: Record<string, unknown> },
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ['payment.created', 'payment.processing', 'payment.succeeded', 'payment.settled'],
    );
    const stage = events[1]!.data.processing as Record<string, unknown>;
    assert.deepEqual(stage.option_amount, { unit: `caip19/${h.solanaTusd}`, value: '12500000' });
    assert.deepEqual(stage.settlement_amount, { unit: `caip19/${h.solanaTusd}`, value: '12500000' });
    assert.equal(stage.buyer_caip10, buyer.caip10);
    assert.equal(stage.chain_caip2, h.solana.caip2);
    assert.equal(stage.fee, null);
    assert.equal((events[2]!.data.success as { tx_id: string }).tx_id, final.info!.txId);
    assert.equal(events[2]!.data.payment_state_version, 2);
  });

  it('a retried confirm after a lost answer gets the same status, and the buyer pays once', async () => {
    const { buyer, paymentId, option } = await ready();
    const signed = await walletSigns(buyer.signer, await fetchTransaction(paymentId, option));
    const body = { optionId: option.id, results: [signed] };
    await expectJson(await h.confirm(paymentId, body), 200);
    const again = await expectJson<StatusAnswer>(await h.confirm(paymentId, body), 200);
    assert.equal(again.status, 'processing');
    assert.equal(await tokenBalance(buyer.signer.address), 100_000_000n - 12_500_000n);
  });

  it('20 concurrent confirms of one payment: one processing event, one transfer', async () => {
    const { buyer, paymentId, option } = await ready();
    const signed = await walletSigns(buyer.signer, await fetchTransaction(paymentId, option));
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => h.confirm(paymentId, { optionId: option.id, results: [signed] })),
    );
    for (const answer of answers) assert.equal((await expectJson<StatusAnswer>(answer, 200)).status, 'processing');
    const events = await h.runtime.db.knex('events').where({ payment_id: paymentId, type: 'payment.processing' });
    assert.equal(events.length, 1);
    assert.equal(await tokenBalance(buyer.signer.address), 100_000_000n - 12_500_000n);
  });

  it('refuses tampered transactions: amount, recipient, mint, an added instruction', async () => {
    const { buyer, paymentId, option } = await ready();
    const fetched = await fetchTransaction(paymentId, option);
    const verified = verifyOption(h.runtime.config.optionSecret!, option.id, paymentId)!;
    const message = getCompiledTransactionMessageDecoder().decode(fetched.messageBytes);
    const lifetime = { blockhash: message.lifetimeToken as never, lastValidBlockHeight: 0n };
    const feePayer = h.chains.solana[0]!.feePayer.address;
    const attacker = await generateKeyPairSigner();
    const otherMint = (await generateKeyPairSigner()).address;
    const variants: Record<string, Transaction> = {
      amount: await paymentTransaction(
        { ...verified, claims: { ...verified.claims, amount: '1' } },
        feePayer,
        lifetime,
      ),
      recipient: await paymentTransaction(
        { ...verified, claims: { ...verified.claims, recipient: attacker.address } },
        feePayer,
        lifetime,
      ),
      mint: await paymentTransaction(
        { ...verified, claims: { ...verified.claims, asset: `${h.solana.caip2}/token:${otherMint}` } },
        feePayer,
        lifetime,
      ),
      instruction: compileTransaction(
        appendTransactionMessageInstruction(
          getTransferSolInstruction({
            source: createNoopSigner(feePayer),
            destination: attacker.address,
            amount: 1_000_000_000n,
          }),
          decompileTransactionMessage(message),
        ),
      ),
    };
    for (const [what, tx] of Object.entries(variants)) {
      const message400 = await expectError(
        await h.confirm(paymentId, { optionId: option.id, results: [await walletSigns(buyer.signer, tx)] }),
        400,
        'params_validation',
      );
      assert.match(message400, /not the transaction this option builds/, what);
    }
    assert.equal(await status(paymentId), 'requires_action');
    assert.equal(await tokenBalance(buyer.signer.address), 100_000_000n);
  });

  it('refuses a detached signature, a signature by another key, and a transaction of another payment', async () => {
    const { buyer, paymentId, option } = await ready();
    const tx = await fetchTransaction(paymentId, option);
    const signature = await signBytes(buyer.signer.keyPair.privateKey, tx.messageBytes);
    const detached = await expectError(
      await h.confirm(paymentId, { optionId: option.id, results: [Buffer.from(signature).toString('base64')] }),
      400,
      'params_validation',
    );
    assert.match(detached, /detached signature/);

    const stranger = await generateKeyPairSigner();
    const forged: Transaction = {
      ...tx,
      signatures: {
        ...tx.signatures,
        [buyer.signer.address]: (await signBytes(stranger.keyPair.privateKey, tx.messageBytes)) as SignatureBytes,
      },
    };
    const message = await expectError(
      await h.confirm(paymentId, { optionId: option.id, results: [getBase64EncodedWireTransaction(forged)] }),
      400,
      'params_validation',
    );
    assert.match(message, /not signed by the option's account/);

    // A genuine signed transaction of this payment, confirmed against another one.
    const signed = await walletSigns(buyer.signer, tx);
    const other = await h.createPayment();
    const otherOption = await h.optionFor(other, buyer as never, h.solanaTusd);
    await expectError(
      await h.confirm(other, { optionId: otherOption.id, results: [signed] }),
      400,
      'params_validation',
    );
    assert.equal(await tokenBalance(buyer.signer.address), 100_000_000n);
  });

  it('refuses a transaction whose blockhash expired before broadcast; a fresh fetch pays', async () => {
    const { buyer, paymentId, option } = await ready();
    const stale = await walletSigns(buyer.signer, await fetchTransaction(paymentId, option));
    h.solana.test.expireBlockhash();
    const message = await expectError(
      await h.confirm(paymentId, { optionId: option.id, results: [stale] }),
      400,
      'params_validation',
    );
    assert.match(message, /blockhash has expired/);
    const fresh = await walletSigns(buyer.signer, await fetchTransaction(paymentId, option));
    await expectJson(await h.confirm(paymentId, { optionId: option.id, results: [fresh] }), 200);
  });

  it('a broadcast transaction that never lands before its blockhash expires fails the payment', async () => {
    const { buyer, paymentId, option } = await ready();
    const signed = await walletSigns(buyer.signer, await fetchTransaction(paymentId, option));
    h.solana.test.holdTransactions(true);
    try {
      await expectJson(await h.confirm(paymentId, { optionId: option.id, results: [signed] }), 200);
      await h.drain();
      assert.equal(await status(paymentId), 'processing');
      h.solana.test.expireBlockhash();
      h.clock.advance(1_000);
      await h.drain();
    } finally {
      h.solana.test.holdTransactions(false);
    }
    assert.equal(await status(paymentId), 'failed');
    assert.equal(await tokenBalance(buyer.signer.address), 100_000_000n);
  });
});
