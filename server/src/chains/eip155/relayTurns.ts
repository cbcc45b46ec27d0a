/**
 * Relays of one relayer in this process, one at a time: each would otherwise take a pooled connection only to wait
 * on the relayer's row lock (`inRelayerTurn`), and a burst of them (the jobs run 16 at once) could hold every
 * connection of the pool the API shares, while only one of them can make progress. One per chain connection
 * (client.ts), which is where the relayer lives.
 */
export class RelayTurns {
  private readonly turns = new Map<string, Promise<unknown>>();

  inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
    const run = () => work();
    const next = (this.turns.get(key) ?? Promise.resolve()).then(run, run);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.turns.set(key, settled);
    void settled.then(() => {
      if (this.turns.get(key) === settled) this.turns.delete(key);
    });
    return next;
  }
}
