/**
 * Throughput of Webhook.verify against the standardwebhooks package and against "the limit": the least work any
 * verifier must do (one HMAC over the signed content, one base64 comparison, one JSON.parse), measured in the same
 * run on the same inputs. Run: `npx tsx scripts/bench/verifier.ts [--assert]` or `npm run bench -- verifier`.
 */
import { writeSection } from './_report.js';
import { createHmac, createSecretKey } from 'node:crypto';
import { availableParallelism, cpus } from 'node:os';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook } from '../../webhook-verifier/src/index.js';

const TARGET_VS_STANDARD = 3;
const TARGET_VS_LIMIT = 0.8;
const WARMUP_MS = 300;
const ROUND_MS = 100;
const ROUNDS = 15;

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const id = 'msg_2Lh9Zr1m5sXq0bVYc3TnWm8kJd';

/** `objects` pads with many small line items (JSON.parse-heavy); `text` pads one long string (hash-heavy). */
function eventBody(bytes: number, padding: 'objects' | 'text'): string {
  const event = {
    id: 'evt_2Lh9Zr1m5sXq0bVYc3TnWm8kJd',
    type: 'payment.succeeded',
    api_version: '2026-02-18',
    created_at: '2026-02-18T10:05:12.345Z',
    data: {
      payment_id: 'pay_2Lh9Zr1m5sXq0bVYc3TnWm8kJd',
      merchant_id: 'mer_7',
      live: true,
      payment_state_version: 2,
      reference_id: 'order-1042',
      status: 'succeeded',
      amount: { unit: 'iso4217/USD', value: '129900' },
      created_at: '2026-02-18T10:00:00.000Z',
      expires_at: '2026-02-18T10:30:00.000Z',
      processing: null,
      success: { succeeded_at: '2026-02-18T10:05:12.000Z', tx_id: '0x9f1c' },
      failed: null,
      cancelled: null,
      expired: null,
      settled: null,
      refunded: null,
      items: [] as { sku: string; name: string; qty: number }[],
      note: '',
    },
  };
  if (padding === 'text') {
    event.data.note = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '
      .repeat(bytes / 56)
      .slice(0, bytes - JSON.stringify(event).length);
  }
  for (let i = 0; JSON.stringify(event).length < bytes; i++) {
    event.data.items.push({ sku: `SKU-${i.toString().padStart(6, '0')}`, name: `Item number ${i}`, qty: (i % 5) + 1 });
  }
  return JSON.stringify(event);
}

interface Case {
  label: string;
  body: string | Buffer;
  headers: Record<string, string>;
}

function makeCase(label: string, body: string | Buffer): Case {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = new Webhook(secret).sign(id, timestamp, body);
  // A rotation-shaped header would double the work for standardwebhooks too; one entry is the common case.
  return {
    label,
    body,
    headers: { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature },
  };
}

let sink = 0;

/** Operations per second of `fn`, timed in batches so that reading the clock stays negligible. */
function measure(fn: () => unknown, ms: number): number {
  let batch = 16;
  let ops = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < batch; i++) if (fn()) sink++;
    ops += batch;
    now = process.hrtime.bigint();
    if (batch < 4096 && now - start < BigInt(ms) * 100_000n) batch *= 2;
  }
  return ops / (Number(now - start) / 1e9);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const ours = new Webhook(secret);
const theirs = new StandardWebhook(secret);
const key = createSecretKey(Buffer.from(secret.slice('whsec_'.length), 'base64'));

function limit(c: Case): () => unknown {
  const expected = c.headers['webhook-signature']!.slice(3);
  const prefix = `${id}.${c.headers['webhook-timestamp']}.`;
  if (typeof c.body === 'string') {
    const body = c.body;
    return () =>
      createHmac('sha256', key)
        .update(prefix + body)
        .digest('base64') === expected && JSON.parse(body);
  }
  const body = c.body;
  return () =>
    createHmac('sha256', key).update(prefix).update(body).digest('base64') === expected &&
    JSON.parse(body.toString('utf8'));
}

const inputs: [string, string][] = [
  ['1 KB', eventBody(1024, 'objects')],
  ['64 KB, small objects', eventBody(64 * 1024, 'objects')],
  ['64 KB, long text', eventBody(64 * 1024, 'text')],
];
const cases = inputs.flatMap(([label, text]) => [
  makeCase(`${label}, string`, text),
  makeCase(`${label}, Buffer`, Buffer.from(text)),
]);

const rows: string[] = [];
let met = true;
const started = Date.now();
for (const c of cases) {
  const contenders = {
    ours: () => ours.verify(c.body, c.headers),
    standardwebhooks: () => theirs.verify(c.body, c.headers),
    limit: limit(c),
  };
  for (const fn of Object.values(contenders)) if (!fn()) throw new Error(`${c.label}: a contender failed to verify`);
  for (const fn of Object.values(contenders)) measure(fn, WARMUP_MS);
  const samples: Record<keyof typeof contenders, number[]> = { ours: [], standardwebhooks: [], limit: [] };
  const ratios = { standard: [] as number[], limit: [] as number[] };
  const names = Object.keys(contenders) as (keyof typeof contenders)[];
  // Short interleaved rounds, in a rotating order, with ratios taken within each round: load from other processes
  // on a shared machine then shifts all three contenders alike instead of skewing the comparison.
  for (let round = 0; round < ROUNDS; round++) {
    const sample = {} as Record<keyof typeof contenders, number>;
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length]!;
      sample[name] = measure(contenders[name], ROUND_MS);
      samples[name].push(sample[name]);
    }
    ratios.standard.push(sample.ours / sample.standardwebhooks);
    ratios.limit.push(sample.ours / sample.limit);
  }
  const [o, s, l] = [median(samples.ours), median(samples.standardwebhooks), median(samples.limit)];
  const vsStandard = median(ratios.standard);
  const vsLimit = median(ratios.limit);
  const ok = vsStandard >= TARGET_VS_STANDARD && vsLimit >= TARGET_VS_LIMIT;
  met &&= ok;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  rows.push(
    `| ${c.label} | ${fmt(o)} | ${fmt(s)} | ${fmt(l)} | ${vsStandard.toFixed(1)}× | ${(vsLimit * 100).toFixed(0)}% | ${(l / s).toFixed(1)}× | ${ok ? 'yes' : 'NO'} |`,
  );
}

const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
const report = `## verifier

### webhook-verifier: \`verify\` throughput

${new Date().toISOString().slice(0, 10)} · Node ${process.version} · ${cpu} · ${availableParallelism()} cores · medians of ${ROUNDS} interleaved rounds of ${ROUND_MS} ms (ratios per round) after ${WARMUP_MS} ms warmup, ${((Date.now() - started) / 1000).toFixed(0)} s in all

| Body | ours (ops/s) | standardwebhooks (ops/s) | limit (ops/s) | ours / standardwebhooks | ours / limit | limit / standardwebhooks | targets (≥ ${TARGET_VS_STANDARD}×, ≥ ${TARGET_VS_LIMIT * 100}%) |
|---|---:|---:|---:|---:|---:|---:|:---:|
${rows.join('\n')}

"limit" = one \`createHmac('sha256', keyObject)\` over \`id.timestamp.body\`, a base64 string comparison and \`JSON.parse\` of the body (plus UTF-8 decoding for Buffer bodies). "limit / standardwebhooks" is the most any verifier that parses the body can reach against standardwebhooks on that input.`;
console.log(report);
writeSection('verifier', report);

if (sink === 0) console.error('unreachable: keeps results alive');
if (process.argv.includes('--assert') && !met) process.exit(1);
