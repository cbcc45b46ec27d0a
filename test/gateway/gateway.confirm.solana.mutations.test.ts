/**
 * Confirm against every single-byte alteration of a signed Solana transaction: each is the caller's error (a 4xx
 * with a code of the contract) and leaves the payment as it was; then the genuine transaction still pays.
 *
 * Exhaustive where it is cheap and matters most: every byte of the message, flipped in its low bit and re-signed by
 * the buyer (a valid signature over a message the option did not build). fast-check samples the rest: any byte of
 * the whole wire transaction (signature section included) under every bit class (low bit, high bit, 0x00, 0xFF, a
 * random xor), unsigned again or not, and truncations and appended bytes. Last, an account with no Ed25519 key (off
 * the curve) whose signature check can only fail.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  getProgramDerivedAddress,
  getTransactionDecoder,
  getTransactionEncoder,
  partiallySignTransaction,
  signBytes,
  type KeyPairSigner,
  type SignatureBytes,
  type Transaction,
  type TransactionMessageBytes,
} from '@solana/kit';
import { expectError, expectJson } from './harness.js';
import { expectPaymentUntouched, expectRefused, mutateByte, type BitClass } from './mutations.js';
import { startCheckoutHarness, type CheckoutHarness, type PaymentOption, type StatusAnswer } from './checkout.js';

describe('gateway confirm: every altered byte of a signed Solana transaction is refused', function () {
  let h: CheckoutHarness;
  let buyer: { signer: KeyPairSigner; caip10: string };
  let paymentId: string;
  let option: PaymentOption;
  let unsigned: Transaction;
  let genuine: Uint8Array;

  /** The option's transaction, fetched now (a fresh blockhash), and the same signed by the buyer. */
  async function fetchSigned(): Promise<{ unsigned: Transaction; signed: Uint8Array }> {
    const action = option.actions[0]!;
    const fetched = await expectJson<{ actions: { data: { params: { transaction: string }[] } }[] }>(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/fetch`, {
        body: { optionId: option.id, data: action.type === 'build' ? action.data.data : '' },
      }),
      200,
    );
    const tx = getTransactionDecoder().decode(Buffer.from(fetched.actions[0]!.data.params[0]!.transaction, 'base64'));
    const signed = Uint8Array.from(
      getTransactionEncoder().encode(await partiallySignTransaction([buyer.signer.keyPair], tx)),
    );
    return { unsigned: tx, signed };
  }

  before(async () => {
    h = await startCheckoutHarness();
    buyer = await h.solanaBuyer();
    paymentId = await h.createPayment();
    option = await h.optionFor(paymentId, buyer as never, h.solanaTusd);
    ({ unsigned, signed: genuine } = await fetchSigned());
  });
  after(() => h.close());

  const confirm = (wire: Uint8Array) =>
    h.confirm(paymentId, { optionId: option.id, results: [Buffer.from(wire).toString('base64')] });

  const refused = async (wire: Uint8Array, what: string) => expectRefused(await confirm(wire), what);
  const unchanged = () => expectPaymentUntouched(h.runtime.db, paymentId);

  /** The message re-signed by the buyer: the signature is valid, the message is not the option's. */
  async function resigned(messageBytes: Uint8Array): Promise<Uint8Array> {
    const signature = (await signBytes(buyer.signer.keyPair.privateKey, messageBytes)) as SignatureBytes;
    const tx: Transaction = {
      messageBytes: messageBytes as unknown as TransactionMessageBytes,
      signatures: { ...unsigned.signatures, [buyer.signer.address]: signature },
    };
    return Uint8Array.from(getTransactionEncoder().encode(tx));
  }

  it('every byte of the message, flipped and re-signed by the buyer (the reported 500)', async () => {
    const message = Uint8Array.from(unsigned.messageBytes);
    for (let i = 0; i < message.length; i++) {
      const altered = Uint8Array.from(message);
      altered[i] = mutateByte(altered[i]!, 'low', 0);
      await refused(await resigned(altered), `message byte ${i}`);
    }
    await unchanged();
  });

  it('any byte of the wire transaction under every bit class, re-signed or not; truncated; extended', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: genuine.length - 1 }),
        fc.constantFrom<BitClass>('low', 'high', 'zero', 'ones', 'xor'),
        fc.integer({ min: 1, max: 255 }),
        fc.boolean(),
        async (index, kind, xor, resign) => {
          const altered = Uint8Array.from(genuine);
          altered[index] = mutateByte(altered[index]!, kind, xor);
          let wire: Uint8Array = altered;
          if (resign) {
            let decoded: Transaction | null = null;
            try {
              decoded = getTransactionDecoder().decode(altered);
            } catch {
              // Not a transaction any more: sent as it is.
            }
            // Re-signed only when the message itself changed; a changed signature section is sent as it is.
            const message = decoded ? Uint8Array.from(decoded.messageBytes) : null;
            if (message && Buffer.compare(message, Uint8Array.from(unsigned.messageBytes)) !== 0) {
              wire = await resigned(message);
            }
          }
          await refused(wire, `byte ${index} ${kind}${resign ? ' re-signed' : ''}`);
        },
      ),
      { numRuns: 150 },
    );
    for (const length of [0, 1, 64, 65, genuine.length - 1]) {
      await refused(genuine.slice(0, length), `truncated to ${length}`);
    }
    await refused(Uint8Array.from([...genuine, 0]), 'one byte appended');
    await unchanged();
  });

  it("an account whose key is off the curve: its signature check fails as the caller's error, not a 500", async () => {
    // A program-derived address holds TUSD and so gets an option, but no Ed25519 key exists for it.
    const [owner] = await getProgramDerivedAddress({
      programAddress: h.solana.mints.tusd.address,
      seeds: ['paygate:mutations:off-curve', paymentId],
    });
    await h.solana.faucet.mintTokens(owner, h.solana.mints.tusd.address, 100_000_000n);
    const offCurvePayment = await h.createPayment();
    const offCurve = await h.optionFor(
      offCurvePayment,
      { caip10: `${h.solana.caip2}:${owner}` } as never,
      h.solanaTusd,
    );
    const action = offCurve.actions[0]!;
    const fetched = await expectJson<{ actions: { data: { params: { transaction: string }[] } }[] }>(
      await h.call('POST', `/v1/gateway/payment/${offCurvePayment}/fetch`, {
        body: { optionId: offCurve.id, data: action.type === 'build' ? action.data.data : '' },
      }),
      200,
    );
    const tx = getTransactionDecoder().decode(Buffer.from(fetched.actions[0]!.data.params[0]!.transaction, 'base64'));
    for (const fill of [0x01, 0xff]) {
      const forged: Transaction = {
        ...tx,
        signatures: { ...tx.signatures, [owner]: new Uint8Array(64).fill(fill) as SignatureBytes },
      };
      const wire = Buffer.from(getTransactionEncoder().encode(forged)).toString('base64');
      const message = await expectError(
        await h.confirm(offCurvePayment, { optionId: offCurve.id, results: [wire] }),
        400,
        'params_validation',
      );
      assert.match(message, /not signed by the option's account/);
    }
    await expectPaymentUntouched(h.runtime.db, offCurvePayment);
  });

  it('after all of them, the genuine transaction pays', async () => {
    // Fetched again: the local chain's blockhash lives 150 slots (60 s of wall clock), which a loaded machine can
    // spend on the mutations above. The payment and its option are the ones every mutation was refused for.
    ({ signed: genuine } = await fetchSigned());
    const accepted = await expectJson<StatusAnswer>(await confirm(genuine), 200);
    assert.equal(accepted.status, 'processing');
    assert.equal((await h.settle(paymentId, 'succeeded')).status, 'succeeded');
  });
});
