/**
 * Group commit of payment creates: creates that arrive together share one transaction (one commit, and on
 * PostgreSQL one insert per table), since a create is mostly commit and round-trip cost; keyed creates too, each
 * with its key row. Each create is still answered only after its own payment has committed; if the shared
 * transaction fails, each create is retried in a transaction of its own (db/combiner.ts).
 *
 * On PostgreSQL a batch first tries one statement without a transaction (`insertCreatesAlone`) when no event hook
 * needs a transaction for a created payment; that statement declines a batch with a merchant that has a webhook
 * endpoint, whose creates then go in a transaction. This module is that knowledge; the lifecycle only says what a
 * batch is (its rows, its events, its hooks). One batcher per runtime (runtime.ts builds it).
 */
import type { Knex } from 'knex';
import { Combiner } from './combiner.js';
import type { Database } from './connect.js';
import { isEmbedded } from './dialect.js';
import { refusedByServer } from './failure.js';
import { insertCreatesAlone, type CreateRows } from './queries/creates.js';

/**
 * What an event hook writes for a `payment.created` event: nothing, or something only when the payment's merchant
 * has a webhook endpoint for its mode (the delivery hook). When every hook says one of these, creates of merchants
 * without an endpoint commit in one statement without a transaction on PostgreSQL; a hook that says neither keeps
 * every create in a transaction that runs it.
 */
export type CreatedWrites = 'nothing' | 'whenEndpoint';

/** What a batch of creates is, from the lifecycle that makes them. */
export interface CreateBatchWork<I, O> {
  /** The whole batch in the transaction: the rows, the events and whatever their hooks write. */
  inTransaction(trx: Knex.Transaction, items: I[]): Promise<O[]>;
  /** The batch's rows for the one-statement insert, and each create's answer from whether its rows went in. */
  prepareAlone(items: I[]): { rows: CreateRows[]; answers(inserted: boolean[]): O[] };
  /** The merchant and mode a create belongs to. */
  ownerOf(item: I): { merchantId: string; live: boolean };
  /** The event hooks, read at each batch. */
  hooks: readonly { onCreated?: CreatedWrites }[];
}

export interface CreateBatcher<I, O> {
  add(item: I): Promise<O>;
}

/** How long a merchant's mode is known to have a webhook endpoint before a create probes again. */
const ENDPOINT_MEMORY_MS = 60_000;

/**
 * The merchants' modes seen with a webhook endpoint: their creates go straight to a transaction instead of first
 * trying the one-statement insert that would decline them. Only a shortcut: the statement checks for itself.
 */
class EndpointMemory {
  private readonly seen = new Map<string, number>();
  private static keyOf(merchantId: string, live: boolean): string {
    return `${live ? 1 : 0}${merchantId}`;
  }
  note(merchantId: string, live: boolean): void {
    this.seen.set(EndpointMemory.keyOf(merchantId, live), Date.now());
  }
  anyOf(owners: { merchantId: string; live: boolean }[]): boolean {
    const now = Date.now();
    return owners.some(({ merchantId, live }) => {
      const key = EndpointMemory.keyOf(merchantId, live);
      const at = this.seen.get(key);
      if (at === undefined) return false;
      if (now - at < ENDPOINT_MEMORY_MS) return true;
      this.seen.delete(key);
      return false;
    });
  }
}

export function createBatcher<I, O>(db: Database, work: CreateBatchWork<I, O>): CreateBatcher<I, O> {
  // Two transactions in flight on a database server, so the next batch forms and starts while one waits on the
  // network; an embedded database has one connection, and a second transaction would only wait for it.
  const embedded = isEmbedded(db);
  const withEndpoint = new EndpointMemory();
  /** Errors thrown by the statements of a group commit, before any commit was attempted. */
  const failedInside = new WeakSet<object>();
  // On SQLite a statement is no round trip, and the transaction costs nothing.
  const alonePossible = () => !embedded && work.hooks.every((hook) => hook.onCreated !== undefined);
  const inTransaction = (items: I[]) =>
    db.knex.transaction(async (t) => {
      try {
        return await work.inTransaction(t, items);
      } catch (err) {
        if (typeof err === 'object' && err !== null) failedInside.add(err);
        throw err;
      }
    });
  /** The batch in one statement; null when a merchant of the batch has an endpoint (nothing was inserted). */
  const alone = async (items: I[]): Promise<O[] | null> => {
    const prepared = work.prepareAlone(items);
    const outcome = await insertCreatesAlone(db.knex, prepared.rows);
    if ('endpoints' in outcome) {
      for (const e of outcome.endpoints) withEndpoint.note(e.merchantId, e.live);
      return null;
    }
    return prepared.answers(outcome.inserted);
  };
  const combiner = new Combiner<I, O>(
    async (items) => {
      if (alonePossible() && !withEndpoint.anyOf(items.map((item) => work.ownerOf(item)))) {
        try {
          const created = await alone(items);
          if (created) return created;
        } catch (err) {
          // The server refused the statement, so none of it happened; a lost connection may have committed it.
          if (refusedByServer(err)) failedInside.add(err as object);
          throw err;
        }
      }
      return inTransaction(items);
    },
    {
      concurrency: embedded ? 1 : 2,
      // Only a statement that failed inside the transaction proves nothing committed; a failed BEGIN or COMMIT (a
      // lost connection) might have, and the creates are answered with the error instead of being made twice.
      retryAlone: (err) => typeof err === 'object' && err !== null && failedInside.has(err),
    },
  );
  return { add: (item) => combiner.add(item) };
}
