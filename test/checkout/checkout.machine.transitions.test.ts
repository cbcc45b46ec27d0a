/** The checkout's pure reducer (web/src/checkout/checkoutMachine.ts), without a browser. */
import assert from 'node:assert/strict';
import {
  checkoutReducer,
  initialState,
  showsMessage,
  type CheckoutEvent,
  type CheckoutState,
} from '../../web/src/checkout/checkoutMachine.js';

const run = (state: CheckoutState, ...events: CheckoutEvent[]) => events.reduce(checkoutReducer, state);
const status = (s: string, seenAt: number | null = 1_000, txId: string | null = null): CheckoutEvent => ({
  type: 'status',
  answer: { status: s as 'succeeded', info: null },
  seenAt,
  txId,
  caip2: txId ? 'eip155:1' : null,
});
const request = { paymentId: 'pay_1', option: 'opt_1', results: [] } as never;

describe('checkout machine', () => {
  it('initial state: loading with a payment id, not found without one', () => {
    assert.equal(initialState('pay_1').view.kind, 'loading');
    assert.equal(initialState(null).view.kind, 'notFound');
  });

  it('load: open for requires_action, final for an ended payment seen later (not live), loadFailed and notFound', () => {
    assert.deepEqual(run(initialState('pay_1'), { type: 'open' }).view, { kind: 'open' });
    assert.deepEqual(run(initialState('pay_1'), status('expired', null)).view, {
      kind: 'final',
      status: 'expired',
      result: null,
      seenAt: null,
      live: false,
    });
    assert.equal(run(initialState('pay_1'), { type: 'loadFailed' }).view.kind, 'loadFailed');
    assert.equal(run(initialState('pay_1'), { type: 'loadFailed' }, { type: 'load' }).view.kind, 'loading');
    assert.equal(run(initialState('pay_1'), { type: 'notFound' }).view.kind, 'notFound');
  });

  it('a decline, then cancelled: the final view carries no stale message (finding 11)', () => {
    const declined = run(initialState('pay_1'), { type: 'open' }, { type: 'message', message: 'You declined' });
    assert.equal(showsMessage(declined), true);
    const cancelled = run(declined, status('cancelled'));
    assert.equal(cancelled.view.kind, 'final');
    assert.equal(cancelled.message, null);
    assert.equal(showsMessage(run(cancelled, { type: 'message', message: 'late' })), false);
  });

  it('a sticky message (the data form refused because the payment expired) stays on the final view', () => {
    const refused = run(initialState('pay_1'), { type: 'open' }, { type: 'message', message: 'expired', sticky: true });
    const expired = run(refused, status('expired'));
    assert.equal(expired.message, 'expired');
    assert.equal(showsMessage(expired), true);
  });

  it('processing keeps its transaction; a second processing answer and a late open change nothing', () => {
    const processing = run(initialState('pay_1'), { type: 'open' }, status('processing', 1_000, '0xabc'));
    assert.deepEqual(processing.view, { kind: 'processing', txId: '0xabc', caip2: 'eip155:1', unconfirmed: null });
    assert.equal(run(processing, status('processing', 2_000, null)), processing);
    assert.equal(run(processing, status('requires_action')), processing);
  });

  it('an unconfirmed confirm stays in processing to be sent again, and is cleared once confirmed', () => {
    const stuck = run(
      initialState('pay_1'),
      { type: 'open' },
      {
        type: 'unconfirmed',
        txId: '0xabc',
        caip2: 'eip155:1',
        request,
        error: 'network down',
      },
    );
    assert.deepEqual(stuck.view.kind === 'processing' && stuck.view.unconfirmed, { request, error: 'network down' });
    const sent = run(stuck, { type: 'confirmed' });
    assert.deepEqual(sent.view, { kind: 'processing', txId: '0xabc', caip2: 'eip155:1', unconfirmed: null });
  });

  it('the first final answer wins: later polls, opens and confirms do not change it or its time', () => {
    const succeeded = run(initialState('pay_1'), { type: 'open' }, status('succeeded', 5_000));
    assert.equal(run(succeeded, status('failed', 9_000)), succeeded);
    assert.equal(run(succeeded, { type: 'open' }), succeeded);
    assert.equal(run(succeeded, status('processing')), succeeded);
    assert.equal(run(succeeded, { type: 'confirmed' }), succeeded);
    assert.deepEqual(succeeded.view, { kind: 'final', status: 'succeeded', result: null, seenAt: 5_000, live: true });
  });
});
