import assert from 'node:assert/strict';
import { isPaymentId, newId, timeBase62 } from '../../server/src/ids.js';
import { newDeliveryId } from '../../server/src/webhooks/delivery.js';

describe('payments.ids', () => {
  it('timeBase62 sorts as the times do, across digit, upper- and lower-case boundaries', () => {
    const times = [0, 1, 9, 10, 35, 36, 61, 62, 3843, 3844, 1_700_000_000_000, 1_700_000_000_001, 4_102_444_800_000];
    const encoded = times.map(timeBase62);
    for (const e of encoded) assert.match(e, /^[0-9A-Za-z]{8}$/);
    assert.deepEqual([...encoded].sort(), encoded, 'byte order is time order');
    assert.equal(timeBase62(0), '00000000');
    assert.equal(timeBase62(61), '0000000z');
    assert.equal(timeBase62(62), '00000010');
  });

  it('payment, event and delivery ids keep their issued form and go in creation-time order', async () => {
    const first = { payment: newId.payment(), event: newId.event(), delivery: newDeliveryId() };
    assert.ok(isPaymentId(first.payment), first.payment);
    assert.match(first.event, /^evt_[0-9A-Za-z]{24}$/);
    assert.match(first.delivery, /^whd_[0-9A-Za-z]{24}$/);
    // The time prefix is the wall clock's millisecond: wait until it has moved on (bounded by the clock itself).
    const start = Date.now();
    while (Date.now() === start) await new Promise((resolve) => setImmediate(resolve));
    const later = { payment: newId.payment(), event: newId.event(), delivery: newDeliveryId() };
    for (const kind of ['payment', 'event', 'delivery'] as const) {
      assert.ok(later[kind] > first[kind], `${later[kind]} sorts after ${first[kind]} (byte order)`);
      assert.ok(later[kind].slice(4, 12) > first[kind].slice(4, 12), 'the time part grew');
    }
  });

  it('ids made together differ in their random part', () => {
    const ids = Array.from({ length: 2000 }, () => newId.payment());
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(new Set(ids.map((id) => id.slice(12))).size, ids.length, 'the 16 random characters differ');
  });
});
