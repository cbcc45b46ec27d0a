/**
 * Daily volume of one currency over the last 30 days: a uPlot bar-like line chart (hidden from assistive technology)
 * beside a visually hidden table with the same numbers (exact amounts). The chart's y values are floats, for drawing
 * only: every amount a person reads comes from the exact decimal strings.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
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

export function VolumeChart({ currency, points }: { currency: string; points: readonly DayPoint[] }) {
  const box = useRef<HTMLDivElement>(null);
  const code = currencyCode(currency);
  const digits = code ? currencyDigits(code) : 0;

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const xs = points.map((p) => Date.parse(`${p.date}T00:00:00Z`) / 1000);
    const ys = points.map((p) => Number(toDecimal(p.volume, digits)));
    const width = () => Math.max(240, Math.floor(element.clientWidth));
    const plot = new uPlot(
      {
        width: width(),
        height: 200,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        axes: [
          { stroke: '#4d5561', grid: { stroke: '#e6e9ee' } },
          {
            stroke: '#4d5561',
            grid: { stroke: '#e6e9ee' },
            size: 70,
            values: (_u, splits) =>
              splits.map((v) => new Intl.NumberFormat(undefined, { notation: 'compact' }).format(v)),
          },
        ],
        series: [
          {},
          {
            label: `Volume (${code ?? currency})`,
            stroke: '#1f4fd6',
            width: 2,
            fill: 'rgba(31, 79, 214, 0.12)',
            points: { show: true, size: 4 },
          },
        ],
      },
      [xs, ys],
      element,
    );
    const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: 200 }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [points, currency, digits, code]);

  return (
    <figure class="chart-figure">
      <div class="chart" ref={box} aria-hidden="true" data-testid={`chart-${currency}`} />
      <div class="visually-hidden">
        <table>
          <caption>
            Daily volume in {code ?? currency}, last {points.length} days (UTC dates)
          </caption>
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
