/**
 * Daily volume of one currency over the last 30 days: one bar a day (a line drawn between days made ramps that showed
 * volume on days that had none: issue 31 finding 14), and a readout that says the day a bar stands for, its exact
 * amount and count, on hover and on keyboard focus (the chart is one tab stop; the arrow keys, Home and End move
 * between days). A visually hidden table holds the same numbers for a screen reader. Bar heights are floats, for
 * drawing only: every amount a person reads comes from the exact decimal strings.
 */
import { useState } from 'preact/hooks';
import { currencyCode, currencyDigits, formatCount, formatMoney, toDecimal } from './format.js';

export interface DayPoint {
  /** `YYYY-MM-DD`, UTC. */
  date: string;
  /** Minor units, decimal string. */
  volume: string;
  count: number;
}

/**
 * The last `days` UTC dates ending at `today` (inclusive; or at the latest date of the series when the server's clock
 * is ahead of the browser's), oldest first, each with its point or zeros.
 */
export function fillDays(points: readonly DayPoint[], today: Date, days = 30): DayPoint[] {
  const byDate = new Map(points.map((p) => [p.date, p]));
  const out: DayPoint[] = [];
  const latest = points.reduce((max, p) => Math.max(max, Date.parse(`${p.date}T00:00:00Z`) || 0), 0);
  const end = Math.max(latest, Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()));
  for (let i = days - 1; i >= 0; i--) {
    const date = new Date(end - i * 86_400_000).toISOString().slice(0, 10);
    out.push(byDate.get(date) ?? { date, volume: '0', count: 0 });
  }
  return out;
}

const KEYS: Record<string, (i: number, last: number) => number> = {
  ArrowLeft: (i) => Math.max(0, i - 1),
  ArrowRight: (i, last) => Math.min(last, i + 1),
  Home: () => 0,
  End: (_i, last) => last,
};

export function VolumeChart({ currency, points }: { currency: string; points: readonly DayPoint[] }) {
  const code = currencyCode(currency);
  const digits = code ? currencyDigits(code) : 0;
  const last = points.length - 1;
  const [active, setActive] = useState<number | null>(null);
  const heights = points.map((p) => Number(toDecimal(p.volume, digits)));
  const top = Math.max(0, ...heights);
  const shown = active === null ? null : points[active];
  const caption = `Daily volume in ${code ?? currency}, last ${points.length} days (UTC dates)`;

  return (
    <figure class="chart-figure">
      <div
        class="chart bars"
        role="group"
        aria-label={`${caption}; the arrow keys read each day`}
        aria-describedby={`readout-${currency}`}
        tabIndex={0}
        data-testid={`chart-${currency}`}
        onFocus={() => setActive((i) => i ?? last)}
        onBlur={() => setActive(null)}
        onMouseLeave={() => setActive(null)}
        onKeyDown={(e) => {
          const move = KEYS[e.key];
          if (!move) return;
          e.preventDefault();
          setActive((i) => move(i ?? last, last));
        }}
      >
        {points.map((p, i) => (
          <span
            key={p.date}
            class={i === active ? 'bar-day active' : 'bar-day'}
            data-day={p.date}
            onMouseEnter={() => setActive(i)}
          >
            <span class="bar" style={{ height: `${top > 0 ? (heights[i]! / top) * 100 : 0}%` }} />
          </span>
        ))}
      </div>
      <p
        class="chart-readout muted"
        id={`readout-${currency}`}
        aria-live="polite"
        data-testid={`chart-readout-${currency}`}
      >
        {shown
          ? `${shown.date}: ${formatMoney({ unit: currency, value: shown.volume })}, ${formatCount(shown.count)} ${shown.count === 1 ? 'payment' : 'payments'}`
          : 'Point at a bar, or focus the chart and use the arrow keys, to read a day.'}
      </p>
      <div class="visually-hidden">
        <table>
          <caption>{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">Volume</th>
              <th scope="col">Payments</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.date}>
                <th scope="row">{p.date}</th>
                <td>{formatMoney({ unit: currency, value: p.volume })}</td>
                <td>{formatCount(p.count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
