/**
 * Overview: per currency, today / 7 days / 30 days (volume, count, success rate) and the daily volume of the last 30
 * days (a chart plus the same data as a visually hidden table). The success rate says what it is of: the finished
 * payments, the open ones left out and counted. A merchant starting in test mode sees its first steps.
 */
import { useDashboard } from '../context.js';
import { Loaded } from '../../kit/Loading.js';
import { useLoad } from '../../kit/request.js';
import { currencyCode, formatCount, formatMoney, formatRate } from './parts/format.js';
import { getOverview, type Totals } from './parts/requests.js';
import { FirstSteps } from './parts/FirstSteps.js';
import { TestPaymentAction } from './parts/TestPayment.js';
import { fillDays, VolumeChart } from './parts/VolumeChart.js';

const WINDOWS = [
  ['today', 'Today'],
  ['last7Days', 'Last 7 days'],
  ['last30Days', 'Last 30 days'],
] as const;

export function Overview() {
  const { api, mode } = useDashboard();
  const [load, reload] = useLoad(() => getOverview(api), [api, mode]);

  return (
    <section class="screen" aria-labelledby="overview-title">
      <header class="screen-head">
        <h1 id="overview-title" tabIndex={-1}>
          Overview
        </h1>
        <p class="muted">{mode === 'test' ? 'Test-mode payments' : 'Live payments'}; days are UTC days.</p>
      </header>
      <Loaded load={load} what="the overview">
        {(data) => (
          <>
            <FirstSteps hasTestPayment={mode === 'test' && data.currencies.length > 0} />
            <TestPaymentAction onCreated={reload} />
            {data.currencies.length === 0 ? (
              <div class="card" data-testid="overview-empty">
                <h2>No payments yet</h2>
                <p>
                  When this merchant creates {mode === 'test' ? 'test-mode' : 'live'} payments, their volume, count and
                  success rate appear here, per currency.
                </p>
              </div>
            ) : null}
            {data.currencies.map((c) => (
              <section key={c.currency} class="card" aria-labelledby={`cur-${c.currency}`} data-currency={c.currency}>
                <h2 id={`cur-${c.currency}`}>{currencyCode(c.currency) ?? c.currency}</h2>
                <div class="kpis">
                  {WINDOWS.map(([key, label]) => (
                    <Window key={key} label={label} currency={c.currency} totals={c[key]} />
                  ))}
                </div>
                <VolumeChart
                  currency={c.currency}
                  points={fillDays(
                    data.series.filter((s) => s.currency === c.currency),
                    new Date(),
                  )}
                />
              </section>
            ))}
          </>
        )}
      </Loaded>
    </section>
  );
}

function Window({ label, currency, totals }: { label: string; currency: string; totals: Totals }) {
  return (
    <section class="kpi" aria-label={`${label}, ${currencyCode(currency) ?? currency}`}>
      <h3>{label}</h3>
      <div class="volume">{formatMoney({ unit: currency, value: totals.volume })}</div>
      <dl>
        <dt>Payments</dt>
        <dd>{formatCount(totals.count)}</dd>
        <dt>Succeeded</dt>
        <dd>{formatCount(totals.succeeded)}</dd>
        <dt>Success rate</dt>
        <dd>
          {formatRate(totals.successRate)}{' '}
          <span class="muted">
            {totals.successRate === null ? '(no payment finished yet' : '(of finished payments'}
            {totals.open > 0 ? `; ${formatCount(totals.open)} open not counted)` : ')'}
          </span>
        </dd>
      </dl>
    </section>
  );
}
