/** The point-of-sale screen's pure state machine (web/src/pos/posMachine.ts), without a browser. */
import assert from 'node:assert/strict';
import type { PosPayment, PosTerminal } from '../../web/src/pos/api.js';
import { tipOf } from '../../web/src/pos/amounts.js';
import { transition, type PosEvent, type PosState } from '../../web/src/pos/posMachine.js';
import { tipOf as serverTipOf } from '../../server/src/pos/sales.js';

const terminal: PosTerminal = {
  id: 'pos_AAAAAAAAAAAAAAAA',
  name: 'Counter',
  merchantLogoUrl: null,
  mode: 'test',
  currency: 'iso4217/USD',
  catalogue: [],
  tipPercents: [10],
};

const sale = (paymentId: string, status: PosPayment['status']): PosPayment => ({
  paymentId,
  status,
  isFinal: status !== 'requires_action' && status !== 'processing',
  amount: { unit: 'iso4217/USD', value: '500' },
  subtotal: '500',
  tip: '0',
  expiresAt: 0,
  paymentLink: `https://pay.example/pay/${paymentId}`,
  solanaPayLink: null,
  paymentUris: [],
});

const run = (state: PosState, ...events: PosEvent[]) => events.reduce(transition, state);
const ring: PosState = { name: 'ring', terminal, failure: null };
const FIRST = 'pay_AAAAAAAAAAAAAAAAAAAAAAA1';
const SECOND = 'pay_AAAAAAAAAAAAAAAAAAAAAAA2';

describe('pos.machine transitions', () => {
  it('a fresh answer about the sale on screen ends it: succeeded is Paid, expired is Expired', () => {
    const paying = run(ring, { type: 'charge' }, { type: 'saleCreated', sale: sale(FIRST, 'requires_action') });
    assert.equal(paying.name, 'paying');
    const paid = run(
      paying,
      { type: 'saleRead', sale: sale(FIRST, 'processing') },
      { type: 'saleRead', sale: sale(FIRST, 'succeeded') },
    );
    assert.deepEqual(paid.name === 'done' && paid.outcome, 'paid');
    const expired = run(paying, { type: 'saleRead', sale: sale(FIRST, 'expired') });
    assert.deepEqual(expired.name === 'done' && expired.outcome, 'expired');
  });

  it('a late answer about an earlier sale never shows Paid on the next one', () => {
    const next = run(
      ring,
      { type: 'charge' },
      { type: 'saleCreated', sale: sale(FIRST, 'requires_action') },
      { type: 'newSale' },
      { type: 'charge' },
      { type: 'saleCreated', sale: sale(SECOND, 'requires_action') },
      { type: 'saleRead', sale: sale(FIRST, 'succeeded') },
    );
    assert.equal(next.name, 'paying');
    assert.equal(next.name === 'paying' && next.sale.paymentId, SECOND);
  });

  it('a refused charge returns to the keypad with the reason; a refused key asks for a key', () => {
    const failed = run(ring, { type: 'charge' }, { type: 'chargeFailed', message: 'Offline' });
    assert.deepEqual(failed, { name: 'ring', terminal, failure: 'Offline' });
    assert.deepEqual(run(ring, { type: 'keyRefused' }), { name: 'key', refused: true });
  });

  it('the screen’s tip is the server’s rule: halves up, in integer minor units', () => {
    for (const [subtotal, percent] of [
      [1250n, 15],
      [1255n, 15],
      [1n, 50],
      [999_999_999_999n, 20],
      [3n, 10],
    ] as const) {
      assert.equal(tipOf(subtotal, percent), serverTipOf(subtotal, percent), `${subtotal} at ${percent} %`);
    }
    assert.equal(tipOf(1250n, 15), 188n);
    assert.equal(tipOf(1n, 50), 1n);
  });
});
