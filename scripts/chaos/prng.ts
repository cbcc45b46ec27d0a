/**
 * The chaos run's only source of randomness (mulberry32): the seed fixes which payments, faults and kills are chosen
 * and when, so a run can be replayed. The processes' own timing is the machine's, so a replay repeats the schedule,
 * not every interleaving.
 */
export interface Prng {
  /** In [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

export function prng(seed: number): Prng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from nothing');
      return items[int(0, items.length - 1)]!;
    },
    chance: (p) => next() < p,
  };
}
