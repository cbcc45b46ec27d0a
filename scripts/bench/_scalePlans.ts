/**
 * PostgreSQL plans of the scale benchmark's reads at each size (issue 36: "the plan is a bounded index scan"): one
 * call of each read through the HTTP API with knex's `query` event listening, then `EXPLAIN` of every select it sent,
 * summed up as its scan nodes ("Index Scan payments_list_idx", "Seq Scan payments"). Statements the server sends as
 * prepared statements of its own (db/connect.ts) do not pass knex's event and are not shown.
 */
import type { Knex } from 'knex';
import { dashboardHeaders, merchantHeaders, type Read, type Served } from './_scaleMeasure.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodesOf)];

export async function plansOf(s: Served, reads: Read[]): Promise<Record<string, string[]>> {
  const knex = s.fill.knex;
  const out: Record<string, string[]> = {};
  for (const r of reads) {
    const sent: { sql: string; bindings: unknown[] }[] = [];
    const listener = (q: { sql: string; bindings?: unknown[] }) =>
      sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
    knex.on('query', listener);
    try {
      const res = await fetch(`${s.server.url}${r.path(1000)}`, {
        headers: r.api === 'merchant' ? merchantHeaders(s) : dashboardHeaders(s),
      });
      await res.text();
    } finally {
      knex.off('query', listener);
    }
    const scans = new Set<string>();
    for (const q of sent.filter((x) => /^\s*(select|with)\b/i.test(x.sql))) {
      const explained = (await knex.raw(
        `explain (format json) ${q.sql.replace(/\$\d+/g, '?')}`,
        q.bindings as Knex.RawBinding[],
      )) as { rows: { 'QUERY PLAN': [{ Plan: PlanNode }] }[] };
      for (const n of nodesOf(explained.rows[0]!['QUERY PLAN'][0].Plan)) {
        if (!/Scan/.test(n['Node Type'])) continue;
        scans.add([n['Node Type'], n['Index Name'] ?? n['Relation Name'] ?? ''].join(' ').trim());
      }
    }
    out[r.name] = [...scans];
  }
  return out;
}
