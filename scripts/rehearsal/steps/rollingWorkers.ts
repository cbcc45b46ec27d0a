/**
 * Step 2: the workers restarted one at a time during a burst of deliveries. A worker stopping mid-delivery finishes
 * or leaves its job to another once its lease ends; no event may be lost. Reports the longest delay an event took
 * from its creation to the receiver during the step.
 */
import type { StepRow } from '../context.js';
import type { Deployment } from '../deployment.js';
import type { Traffic } from '../traffic.js';
import { deliveryBurst, undelivered, unpaid } from '../checks.js';

export async function rollingWorkerRestart(d: Deployment, traffic: Traffic, burst: number): Promise<StepRow> {
  traffic.next();
  const paidFrom = traffic.paid.length;
  const since = Date.now();
  const burstDone = deliveryBurst(d, traffic, burst);
  for (const worker of d.fleet.workers) await d.fleet.restart(worker);
  await burstDone;
  const missing = await undelivered(d, 90_000);
  const w = traffic.next();
  const delays = [...d.receiver.events.values()].filter((e) => e.at >= since).map((e) => e.delayMs);
  const lost = unpaid(traffic, paidFrom);
  return {
    step: '2. rolling restart of the workers (delivery burst)',
    requests: w.requests,
    failures: w.failures,
    retries: w.retries,
    longestPauseMs: Math.max(0, ...delays),
    lost: missing.length + lost.length,
    note: [
      `${burst} payments in the burst, ${delays.length} events delivered in the step; longest pause = longest delivery delay`,
      ...w.errors,
      ...missing.slice(0, 5).map((id) => `undelivered ${id}`),
      ...lost,
    ].join('; '),
  };
}
