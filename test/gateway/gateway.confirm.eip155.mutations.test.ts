/**
 * Confirm against altered EVM results: every byte of an EIP-3009 signature under each bit class, and of a direct
 * transfer's transaction hash, plus wrong lengths, non-hex and other real transactions. Each is the caller's error (a
 * 4xx with a code of the contract) and leaves the payment as it was; then the genuine result still pays.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Hex } from 'viem';
import { sharedChains, useChainSnapshots } from '../helpers/chain.js';
import { expectJson } from './harness.js';
import { expectPaymentUntouched, expectRefused, mutateByte, type BitClass } from './mutations.js';
import {
  sendAction,
  signAction,
  startCheckoutHarness,
  withDirectTusd,
  type Buyer,
  type CheckoutHarness,
  type PaymentOption,
  type StatusAnswer,
} from './checkout.js';

const BIT_CLASSES: BitClass[] = ['low', 'high', 'zero', 'ones'];

/** `hex` with byte `index` changed by `kind`. */
function alter(hex: Hex, index: number, kind: BitClass): Hex {
  const bytes = Buffer.from(hex.slice(2), 'hex');
  bytes[index] = mutateByte(bytes[index]!, kind);
  return `0x${bytes.toString('hex')}`;
}

function harnessFor(direct: boolean) {
  const state = {} as {
    h: CheckoutHarness;
    buyer: Buyer;
    paymentId: string;
    option: PaymentOption;
  };
  before(async () => {
    const chains = await sharedChains();
    state.h = await startCheckoutHarness(direct ? { chains: withDirectTusd(chains) } : {});
  });
  after(() => state.h.close());
  beforeEach(async () => {
    state.buyer = await state.h.buyer();
    state.paymentId = await state.h.createPayment();
    state.option = await state.h.optionFor(state.paymentId, state.buyer, state.h.tusd);
  });
  return state;
}

describe('gateway confirm: altered EVM results are refused and change nothing', function () {
  useChainSnapshots();

  async function refused(s: { h: CheckoutHarness; paymentId: string; option: PaymentOption }, result: unknown) {
    const res = await s.h.confirm(s.paymentId, { optionId: s.option.id, results: [result] });
    await expectRefused(res, String(result).slice(0, 140));
  }

  const unchanged = (s: { h: CheckoutHarness; paymentId: string }) =>
    expectPaymentUntouched(s.h.runtime.db, s.paymentId);

  describe('an EIP-3009 signature (eth_signTypedData_v4)', () => {
    const s = harnessFor(false);

    it('every byte under every bit class, wrong lengths and non-hex; then the genuine signature pays', async () => {
      const signature = await signAction(s.buyer, s.option);
      // v = 0/1 is another spelling of v = 27/28 (hardware wallets answer it), the same signature: not a mutation.
      const sameSignature = (hex: Hex) =>
        Number.parseInt(hex.slice(-2), 16) === Number.parseInt(signature.slice(-2), 16) - 27;
      for (let i = 0; i < 65; i++) {
        for (const kind of BIT_CLASSES) {
          const altered = alter(signature, i, kind);
          if (i === 64 && sameSignature(altered)) continue;
          await refused(s, altered);
        }
      }
      for (const bad of [
        signature.slice(0, -2),
        `${signature}00`,
        '0x',
        signature.slice(2),
        `0x${'zz'.repeat(65)}`,
        signature.toUpperCase(),
        `${signature.slice(0, -2)}02`,
        `${signature.slice(0, -2)}1d`,
      ]) {
        await refused(s, bad);
      }
      await unchanged(s);
      const accepted = await expectJson<StatusAnswer>(
        await s.h.confirm(s.paymentId, { optionId: s.option.id, results: [signature] }),
        200,
      );
      assert.equal(accepted.status, 'processing');
      assert.equal((await s.h.settle(s.paymentId, 'succeeded')).status, 'succeeded');
    });
  });

  describe('a transaction hash (eth_sendTransaction)', () => {
    const s = harnessFor(true);

    it('any byte under every bit class (sampled), wrong lengths, unknown and foreign hashes; then the genuine pays', async () => {
      const hash = await sendAction(s.buyer, s.option);
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: 31 }), fc.constantFrom(...BIT_CLASSES), async (index, kind) => {
          await refused(s, alter(hash, index, kind));
        }),
        { numRuns: 64 },
      );
      // Another real transaction of the buyer's, mined on this chain: not the option's transfer.
      const other = await s.buyer.wallet.sendTransaction({
        account: s.buyer.account,
        to: s.buyer.account.address,
        value: 1n,
      });
      for (const bad of [
        hash.slice(0, -2),
        `${hash}00`,
        '0x',
        hash.slice(2),
        `0x${'zz'.repeat(32)}`,
        `0x${'0'.repeat(64)}`,
        other,
      ]) {
        await refused(s, bad);
      }
      await unchanged(s);
      const accepted = await expectJson<StatusAnswer>(
        await s.h.confirm(s.paymentId, { optionId: s.option.id, results: [hash] }),
        200,
      );
      assert.equal(accepted.status, 'processing');
      assert.equal((await s.h.settle(s.paymentId, 'succeeded')).status, 'succeeded');
    });
  });
});
