/** The combiner behind group commits and combined statements: batching by event-loop turn, and failure isolation. */
import assert from 'node:assert/strict';
import { Combiner } from '../../server/src/db/combiner.js';

describe('db.combiner', () => {
  it('one run for the calls of one turn, the next for those made while it runs, in order', async () => {
    const runs: number[][] = [];
    let release: () => void = () => undefined;
    const combiner = new Combiner<number, number>(async (items) => {
      runs.push(items);
      if (runs.length === 1) await new Promise<void>((r) => (release = r));
      return items.map((i) => i * 10);
    });
    const first = [1, 2, 3].map((i) => combiner.add(i));
    await new Promise((r) => setImmediate(r));
    const second = [4, 5].map((i) => combiner.add(i));
    release();
    assert.deepEqual(await Promise.all([...first, ...second]), [10, 20, 30, 40, 50]);
    assert.deepEqual(runs, [
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('a failing run is retried one call at a time, so only the bad call fails', async () => {
    const runs: number[][] = [];
    const combiner = new Combiner<number, number>(async (items) => {
      runs.push(items);
      if (items.includes(2)) throw new Error('bad row');
      return items;
    });
    const results = await Promise.allSettled([1, 2, 3].map((i) => combiner.add(i)));
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(runs, [[1, 2, 3], [1], [2], [3]]);
  });

  it('with a concurrency of 2, calls made while a run waits start a second run at once; a third waits', async () => {
    const runs: number[][] = [];
    const releases: (() => void)[] = [];
    const combiner = new Combiner<number, number>(
      async (items) => {
        runs.push(items);
        await new Promise<void>((r) => releases.push(r));
        return items;
      },
      { concurrency: 2 },
    );
    const all = [combiner.add(1), combiner.add(2)];
    await new Promise((r) => setImmediate(r));
    all.push(combiner.add(3));
    await new Promise((r) => setImmediate(r));
    all.push(combiner.add(4), combiner.add(5));
    await new Promise((r) => setImmediate(r));
    // Two runs in flight: 4 and 5 wait for one of them to finish.
    assert.deepEqual(runs, [[1, 2], [3]]);
    releases.shift()!();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(runs, [[1, 2], [3], [4, 5]]);
    while (releases.length > 0) releases.shift()!();
    assert.deepEqual(await Promise.all(all), [1, 2, 3, 4, 5]);
  });

  it('a failed run whose outcome is unknown is not retried: every call gets its error', async () => {
    const runs: number[][] = [];
    const unknown = new Error('connection lost during commit');
    const combiner = new Combiner<number, number>(
      async (items) => {
        runs.push(items);
        throw unknown;
      },
      { retryAlone: (err) => err !== unknown },
    );
    const results = await Promise.allSettled([1, 2, 3].map((i) => combiner.add(i)));
    assert.deepEqual(
      results.map((r) => (r.status === 'rejected' ? r.reason : r.value)),
      [unknown, unknown, unknown],
    );
    assert.deepEqual(runs, [[1, 2, 3]]);
  });
});
