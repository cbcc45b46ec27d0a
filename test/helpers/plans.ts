/**
 * PostgreSQL plans for the plan tests (docs/decisions.md §24): the statements a query function really sends, caught
 * from knex's `query` event, and the nodes of their `EXPLAIN`.
 */
import type { Knex } from 'knex';

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/** A plan's nodes, the root first. */
export const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

export interface SentStatement {
  sql: string;
  bindings: readonly unknown[];
}

/** The statements knex sends while `run` runs. */
export async function statementsOf(knex: Knex, run: () => Promise<unknown>): Promise<SentStatement[]> {
  const sent: SentStatement[] = [];
  const listener = (q: { sql: string; bindings?: readonly unknown[] }) =>
    sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
  knex.on('query', listener);
  try {
    await run();
  } finally {
    knex.off('query', listener);
  }
  return sent;
}

/** The nodes of the plan of a statement as knex sent it (PostgreSQL's numbered placeholders, in order). */
export async function explainNodes(
  knex: Knex | Knex.Transaction,
  { sql, bindings }: SentStatement,
): Promise<PlanNode[]> {
  const explained = (await knex.raw(
    `EXPLAIN (FORMAT JSON) ${sql.replace(/\$\d+/g, '?')}`,
    bindings as Knex.RawBinding[],
  )) as { rows: { 'QUERY PLAN': [{ Plan: PlanNode }] }[] };
  return nodesOf(explained.rows[0]!['QUERY PLAN'][0].Plan);
}
