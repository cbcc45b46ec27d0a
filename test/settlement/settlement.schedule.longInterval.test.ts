/**
 * Settlement's timers (settlement/settlementTasks.ts `everyInterval`): an interval longer than a Node timer can hold
 * (PAYGATE_PAYOUT_INTERVAL_S allows 30 days, a timer 24.8) waits instead of firing after 1 ms.
 */
import assert from 'node:assert/strict';
import { everyInterval } from '../../server/src/settlement/settlementTasks.js';
import { answerWithin } from '../helpers/wait.js';

describe('settlement.schedule long intervals', () => {
  it('a 30-day interval does not fire at once; a short one does fire', async () => {
    let fired = (): void => undefined;
    const firedLong = new Promise<void>((resolve) => (fired = resolve));
    const stopLong = everyInterval(30 * 86_400_000, () => fired());
    let firedShort = (): void => undefined;
    const short = new Promise<void>((resolve) => (firedShort = resolve));
    const stopShort = everyInterval(5, () => firedShort());
    try {
      assert.equal((await answerWithin(short, 5_000)).answered, true);
      assert.equal((await answerWithin(firedLong, 300)).answered, false);
    } finally {
      stopLong();
      stopShort();
    }
  });
});
