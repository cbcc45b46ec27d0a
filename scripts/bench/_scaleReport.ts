/** The BENCHMARKS.md section of the scale benchmark (scripts/bench/scale.ts) from its results. */
import { machineLine } from './_report.js';
import type { DatabaseResult } from './scale.js';

const last = (r: DatabaseResult) => r.sizes[r.sizes.length - 1]!;

/** A read's p95 at the largest size over its p95 at 10k (the target: at most 2×). */
function ratioOf(r: DatabaseResult, name: string): string {
  const base = r.sizes.find((s) => s.payments === 10_000)?.reads[name];
  const top = last(r).reads[name];
  if (!base || !top || last(r).payments === 10_000) return '–';
  const x = top.p95 / base.p95;
  const plain = `${x.toFixed(1)}×${x > 2 ? ' ✗' : ''}`;
  if (!top.bareP95 || !base.bareP95) return plain;
  // The same ratio with each p95 taken over the bare route's p95 of its moment: what the table's growth costs,
  // with the machine's load at each size divided out.
  const n = top.p95 / top.bareP95 / (base.p95 / base.bareP95);
  return `${plain}; ${n.toFixed(1)}×${n > 2 ? ' ✗' : ''} over the bare route`;
}

const ms = (n: number) => (n < 10 ? n.toFixed(1) : n.toFixed(0));
const short = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n));

/** The BENCHMARKS.md section: a table of each read's p95 (p50) per database and size, then exports and writes. */
export function markdownOf(results: DatabaseResult[], note: string): string {
  const cols = results.flatMap((r) => r.sizes.map((s) => ({ r, s })));
  const measured = results.filter((r) => r.sizes.length > 0);
  const lines = [
    '## Issue 36: data at scale',
    '',
    `${machineLine()} · 2 cores, 24 GiB, shared with other work during this run`,
    '',
    note,
    '',
    'p95 (p50) in ms of each read, through the HTTP API of the app; target p95 < 50 ms (overview < 100 ms) at 1M,',
    'within 2× of the 10k figure. The growth column gives that ratio plain, then with each p95 taken over the p95',
    "of the same server's bare route (/healthz, called before each call of the read), which divides out the",
    "machine's load at each size.",
    '',
    `| Read | target | ${cols.map(({ r, s }) => `${r.dialect} ${short(s.payments)}`).join(' | ')} | ${measured.map((r) => `${r.dialect} p95 ${short(last(r).payments)} / 10k`).join(' | ')} |`,
    `| --- | --- | ${[...cols, ...measured].map(() => '---').join(' | ')} |`,
  ];
  const names = Object.keys(measured[0]?.sizes[0]?.reads ?? {});
  for (const name of names) {
    const target = measured[0]!.targets[name] ?? 50;
    lines.push(
      `| ${name} | ${target} | ${cols
        .map(({ s }) => {
          const t = s.reads[name];
          if (!t) return '–';
          const over = t.p95 >= target ? ' ✗' : '';
          return `${ms(t.p95)} (${ms(t.p50)})${over}`;
        })
        .join(' | ')} | ${measured.map((r) => ratioOf(r, name)).join(' | ')} |`,
    );
  }
  if (measured.some((r) => r.sizes.some((s) => Object.values(s.reads).some((t) => t.bareP95 !== undefined)))) {
    lines.push(
      `| (bare route, /healthz: median over the reads of their p95 (p50)) | – | ${cols
        .map(({ s }) => {
          const b = Object.values(s.reads).filter((t) => t.bareP95 !== undefined);
          if (b.length === 0) return '–';
          const mid = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
          return `${ms(mid(b.map((t) => t.bareP95!)))} (${ms(mid(b.map((t) => t.bareP50!)))})`;
        })
        .join(' | ')} | ${measured.map(() => '').join(' | ')} |`,
    );
  }
  lines.push(
    '',
    '| Exports, writes, size | ' + cols.map(({ r, s }) => `${r.dialect} ${short(s.payments)}`).join(' | ') + ' |',
  );
  lines.push(`| --- | ${cols.map(() => '---').join(' | ')} |`);
  for (const e of ['payments', 'ledger', 'payouts']) {
    lines.push(
      `| ${e} export: rows/s (rows; peak RSS MiB, before) | ${cols
        .map(({ s }) => {
          const x = s.exports[e]!;
          return `${x.rowsPerSecond.toLocaleString('en')} (${x.rows.toLocaleString('en')}; ${x.peakRssMiB}, ${x.rssBeforeMiB})`;
        })
        .join(' | ')} |`,
    );
  }
  lines.push(
    `| creates/s (empty database: see note) | ${cols
      .map(
        ({ r, s }) =>
          `${s.createsPerSecond} (${Math.round((100 * s.createsPerSecond) / r.emptyCreatesPerSecond)}% of ${r.emptyCreatesPerSecond})`,
      )
      .join(' | ')} |`,
  );
  for (const [label, empty, at] of [
    ['confirms/s (simulated, see note)', 'emptyConfirmsPerSecond', 'confirmsPerSecond'],
    ['deliveries/s', 'emptyDeliveriesPerSecond', 'deliveriesPerSecond'],
  ] as const) {
    lines.push(
      `| ${label} | ${cols
        .map(({ r, s }) =>
          s[at] === undefined ? '–' : `${s[at]} (${Math.round((100 * s[at]) / r[empty]!)}% of ${r[empty]})`,
        )
        .join(' | ')} |`,
    );
  }
  lines.push(
    `| load average after fill / reads / exports / writes | ${cols
      .map(({ s }) => (s.load ? [s.load.fill, s.load.reads, s.load.exports, s.load.writes].join(' / ') : '–'))
      .join(' | ')} |`,
  );
  lines.push(
    `| database size, MiB (per 1M payments) | ${cols
      .map(
        ({ s }) =>
          `${Math.round(s.databaseBytes / 2 ** 20)} (${Math.round((s.databaseBytes / 2 ** 20 / s.payments) * 1e6)})`,
      )
      .join(' | ')} |`,
  );
  lines.push(`| fill time, s | ${cols.map(({ s }) => s.fillSeconds.toFixed(0)).join(' | ')} |`);
  for (const r of measured.filter((x) => last(x).plans)) {
    const s = last(r);
    lines.push(
      '',
      `PostgreSQL plans at ${short(s.payments)} (EXPLAIN of each statement a read sends through knex; statements the server prepares itself are not shown):`,
      '',
      '| Read | scans |',
      '| --- | --- |',
      ...Object.entries(s.plans!).map(([name, nodes]) => `| ${name} | ${nodes.join(', ') || '(prepared statement)'} |`),
    );
  }
  const scans = results.filter((r) => r.scan);
  if (scans.length > 0) {
    lines.push('', '| Deposit scan (target: one round within the 2 s scan interval) | ms |', '| --- | --- |');
    for (const { dialect, scan } of scans) {
      lines.push(
        `| ${dialect}: one round over ${scan!.watched.toLocaleString('en')} watched addresses, ${scan!.transfers} of them paid in the block (recorded ${scan!.recorded}, credited) | ${ms(scan!.roundMs)} |`,
        `| ${dialect}: one round over ${scan!.watched.toLocaleString('en')} watched addresses, nothing new | ${ms(scan!.idleRoundMs)} |`,
      );
    }
  }
  return lines.join('\n');
}
