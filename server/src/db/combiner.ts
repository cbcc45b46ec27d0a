/**
 * Combines calls into one database round trip (one statement with many rows, or one transaction): the calls made
 * in one turn of the event loop (requests that arrived together), and those made while a run of the same kind is in
 * flight. A lone call waits for nothing but the end of the current turn; under load, one round trip (and on SQLite
 * one commit) serves many calls, which is what bounds throughput on a small machine, since every round trip and
 * every commit costs CPU. Each call keeps its own outcome: when a combined run fails, each call is retried alone, so
 * one bad call fails only itself.
 */
export class Combiner<I, O> {
  private queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  /** Runs in flight. */
  private running = 0;
  /** A run is due at the end of this turn. */
  private scheduled = false;

  private readonly max: number;
  private readonly concurrency: number;
  private readonly retryAlone: (err: unknown) => boolean;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    options: {
      /** Calls per run at most (32). */
      max?: number;
      /**
       * Runs in flight at once (1). Above 1, the calls made while a run waits on the database start the next run at
       * once instead of waiting for it, which keeps a process busy when round-trip latency, not CPU, is the limit.
       */
      concurrency?: number;
      /**
       * Whether a failed run may be retried one call at a time (always, by default). A run whose outcome is unknown
       * (its commit was sent and the connection failed) must not be: retrying would do the work twice.
       */
      retryAlone?: (err: unknown) => boolean;
    } = {},
  ) {
    this.max = options.max ?? 32;
    this.concurrency = options.concurrency ?? 1;
    this.retryAlone = options.retryAlone ?? (() => true);
  }

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.scheduled && this.running < this.concurrency) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          void this.drain();
        });
      }
    });
  }

  private async drain(): Promise<void> {
    if (this.running >= this.concurrency || this.queue.length === 0) return;
    this.running++;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.max);
        try {
          const out = await this.run(batch.map((b) => b.item));
          batch.forEach((b, i) => b.resolve(out[i]!));
        } catch (err) {
          if (batch.length === 1 || !this.retryAlone(err)) batch.forEach((b) => b.reject(err));
          else
            await Promise.all(
              batch.map((b) =>
                this.run([b.item]).then(
                  (out) => b.resolve(out[0]!),
                  (e: unknown) => b.reject(e),
                ),
              ),
            );
        }
      }
    } finally {
      this.running--;
    }
  }
}
