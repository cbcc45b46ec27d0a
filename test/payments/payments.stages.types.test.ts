import assert from 'node:assert/strict';
import type { recordStage, transitionPayment } from '../../server/src/payments/lifecycle.js';
import { noStages, type PaymentStages } from '../../server/src/db/queries/paymentStages.js';
import type { PaymentSnapshot } from '../../server/src/payments/snapshot.js';

/** What a writer hands the lifecycle: a change's stages, and a recorded stage's builder. */
type ChangeStages = Parameters<typeof transitionPayment>[2]['stages'];
type RecordedStage<S extends 'settled' | 'refunded'> = NonNullable<ReturnType<Parameters<typeof recordStage<S>>[3]>>;

const money = { unit: 'iso4217/USD', value: '1250' };
const at = '2026-02-18T10:00:00.000Z';

describe('payments.stages', () => {
  it('types every stage from the contract: a misspelt, missing or invented field does not compile', () => {
    // The assertions here are the @ts-expect-error lines, checked by `tsc` over test/ (npm test type-checks first).
    const change = (stages: ChangeStages) => stages;
    const settled = (stage: RecordedStage<'settled'>) => stage;
    const refunded = (stage: RecordedStage<'refunded'>) => stage;

    change({ success: { succeeded_at: at, tx_id: '0x1' } });
    // @ts-expect-error succeeded_at, misspelt
    change({ success: { suceeded_at: at, tx_id: '0x1' } });
    // @ts-expect-error cancelled_by and cancellation_reason are required
    change({ cancelled: { cancelled_at: at } });
    // @ts-expect-error no stage is called `succeeded` (the status is; its stage is `success`)
    change({ succeeded: { succeeded_at: at, tx_id: '0x1' } });
    // @ts-expect-error a stage is set by a change, never cleared
    change({ expired: null });
    settled({ settled_at: at, settlement_amount: money, tx_id: null });
    // @ts-expect-error the contract has no `settled_amount`
    settled({ settled_at: at, settled_amount: money, tx_id: null });
    // @ts-expect-error the contract has no `refund_amount`
    refunded({ refunded_at: at, reason: null, refund_amount: money });

    // Each stage of the row is the snapshot's own key, so the snapshot is built without a cast.
    const stages: PaymentStages = noStages();
    const snapshotStages: Pick<PaymentSnapshot, keyof PaymentStages> = stages;
    assert.deepEqual(snapshotStages, {
      processing: null,
      success: null,
      failed: null,
      cancelled: null,
      expired: null,
      settled: null,
      refunded: null,
    });
  });
});
