/**
 * Step 1: the API processes restarted one at a time under traffic, as `systemctl restart paygate-api@<port>` does
 * (SIGTERM: the process drains its requests, then a new one starts and becomes ready before the next is touched).
 * Nothing may fail: nginx passes a refused connection to the other process, and the SDKs retry what nginx cannot.
 */
import type { StepRow } from '../context.js';
import type { Deployment } from '../deployment.js';
import type { Traffic } from '../traffic.js';
import { unpaid } from '../checks.js';

export async function rollingApiRestart(d: Deployment, traffic: Traffic): Promise<StepRow> {
  traffic.next();
  const paidFrom = traffic.paid.length;
  const proxyRetriesBefore = d.proxy.retried();
  for (const api of d.fleet.apis) await d.fleet.restart(api);
  // Traffic keeps flowing on the restarted processes for a moment before the window closes.
  await traffic.settle(3);
  const w = traffic.next();
  const proxyRetries = d.proxy.retried() - proxyRetriesBefore;
  const lost = unpaid(traffic, paidFrom);
  return {
    step: '1. rolling restart of the API processes',
    requests: w.requests,
    failures: w.failures,
    retries: w.retries + proxyRetries,
    longestPauseMs: w.longestMs,
    lost: lost.length,
    note: [`${proxyRetries} passed on by nginx, ${w.retries} retried by the SDKs`, ...w.errors, ...lost].join('; '),
  };
}
