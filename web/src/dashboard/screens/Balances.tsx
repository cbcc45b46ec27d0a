/**
 * Balances & payouts: what the operator owes the merchant (collected mode), what the merchant owes in fees (direct
 * mode), the payouts with their state and transaction, and the two settlement CSVs (ledger, payouts). Every figure is
 * of the mode the switch shows. Token amounts are minor units on the wire, shown in whole tokens where the page's
 * config knows the asset's decimals (format.ts `formatTokenAmount`). Transaction ids are shown and copied, never
 * linked: the dashboard makes no request to another site.
 */
import { useId, useState } from 'preact/hooks';
import type { DashboardChain } from '../config';
import { useDashboard } from '../context';
import { dateInputValue, localMidnight, localMidnightAfter, shortId, type Money } from './parts/format.js';
import {
  exportSettlement,
  getFeeBalance,
  getSettlementBalances,
  listPayouts,
  saveBlob,
  type FeeBalances,
  type SettlementBalances,
} from './parts/requests.js';
import { Notice } from '../../kit/Badge.js';
import { FieldError, FormError } from '../../kit/Field.js';
import { Loaded } from '../../kit/Loading.js';
import { Pager, useCursors } from '../../kit/Pager.js';
import { useAction, useLoad, type Load } from '../../kit/request.js';
import { Table } from '../../kit/Table.js';
import { Time } from '../../kit/Time.js';
import { Network, TokenAmount } from './parts/money.js';
import { PayoutState } from './parts/PayoutState.js';

export function Balances(props: { chains: DashboardChain[] }) {
  const { api, mode } = useDashboard();
  const [balances] = useLoad(() => getSettlementBalances(api), [api, mode]);
  const [fees] = useLoad(() => getFeeBalance(api), [api, mode]);
  return (
    <section class="screen" aria-labelledby="balances-title">
      <header class="screen-head">
        <h1 id="balances-title" tabIndex={-1}>
          Balances &amp; payouts
        </h1>
        <p class="muted">
          {mode === 'live' ? 'Live' : 'Test'}-mode figures. The settlement mode is chosen in{' '}
          <a href="/dashboard/settings">Settings</a>.
        </p>
      </header>
      <div class="grid-2">
        <UnpaidCard chains={props.chains} load={balances} />
        <FeeCard chains={props.chains} load={fees} />
      </div>
      <PayoutsCard chains={props.chains} />
      <ExportCard />
    </section>
  );
}

function UnpaidCard(props: { chains: DashboardChain[]; load: Load<SettlementBalances> }) {
  return (
    <div class="card" aria-labelledby="unpaid-title" role="region">
      <h2 id="unpaid-title">Owed to you</h2>
      <p class="muted">
        Collected mode: payments received at the operator's addresses, net of fees, not paid out yet. They are paid out
        on the operator's schedule. Money a partly paid or overpaid payment received is the buyer's, not counted here:
        its payment's page shows it and refunds it.
      </p>
      <Loaded load={props.load} what="balances">
        {(data) =>
          data.data.length === 0 ? (
            <p class="empty">Nothing owed: no collected payment in this mode yet.</p>
          ) : (
            // Focusable, like the other tables: on a phone it scrolls sideways.
            <Table
              label="Balances owed table"
              rows={data.data}
              rowKey={(b) => `${b.chain_caip2} ${b.unpaid.unit}`}
              columns={[
                { label: 'Network', cell: (b) => <Network chains={props.chains} caip2={b.chain_caip2} /> },
                { label: 'Unpaid', num: true, cell: (b) => <TokenAmount chains={props.chains} amount={b.unpaid} /> },
              ]}
            />
          )
        }
      </Loaded>
    </div>
  );
}

function FeeCard(props: { chains: DashboardChain[]; load: Load<FeeBalances> }) {
  const money = (asset: string, value: string): Money => ({ unit: asset, value });
  return (
    <div class="card" aria-labelledby="fees-title" role="region">
      <h2 id="fees-title">Fees owed</h2>
      <p class="muted">
        Direct mode: buyers pay you directly, so the operator's fee accrues here once a payment is final, and is
        invoiced separately.
      </p>
      <Loaded load={props.load} what="the fee balance">
        {(data) =>
          data.balances.length === 0 ? (
            <p class="empty">No fee has accrued in this mode.</p>
          ) : (
            // Focusable: on a phone the table scrolls sideways, and a keyboard must be able to scroll it too.
            <Table
              label="Fee balance table"
              rows={data.balances}
              rowKey={(b) => `${b.chain} ${b.asset}`}
              columns={[
                { label: 'Network', cell: (b) => <Network chains={props.chains} caip2={b.chain} /> },
                ...(['accrued', 'invoiced', 'outstanding'] as const).map((key) => ({
                  label: key[0]!.toUpperCase() + key.slice(1),
                  num: true,
                  cell: (b: FeeBalances['balances'][number]) => (
                    <TokenAmount chains={props.chains} amount={money(b.asset, b[key])} />
                  ),
                })),
              ]}
            />
          )
        }
      </Loaded>
    </div>
  );
}

const payoutHref = (id: string) => `/dashboard/balances/payouts/${encodeURIComponent(id)}`;

function PayoutsCard(props: { chains: DashboardChain[] }) {
  const { api, mode, navigate } = useDashboard();
  const cursors = useCursors();
  const { cursor } = cursors;
  const [load] = useLoad(() => listPayouts(api, cursor), [api, mode, cursor]);
  return (
    <div class="card" aria-labelledby="payouts-title" role="region">
      <h2 id="payouts-title">Payouts</h2>
      <Loaded load={load} what="payouts">
        {(page) =>
          page.data.length === 0 ? (
            <p class="empty">
              No {mode}-mode payout yet. In collected mode, payouts send what you are owed to your settlement address.
            </p>
          ) : (
            <Table
              label="Payouts table"
              rows={page.data}
              rowKey={(p) => p.payout_id}
              rowData={(p) => ({ 'data-payout': p.payout_id })}
              open={(p) => navigate(payoutHref(p.payout_id))}
              columns={[
                { label: 'Created', cell: (p) => <Time value={p.created_at} /> },
                {
                  label: 'State',
                  cell: (p) => <PayoutState state={p.state} />,
                },
                { label: 'Network', cell: (p) => <Network chains={props.chains} caip2={p.chain_caip2} /> },
                { label: 'Paid out', num: true, cell: (p) => <TokenAmount chains={props.chains} amount={p.net} /> },
                { label: 'Fee', num: true, cell: (p) => <TokenAmount chains={props.chains} amount={p.fee} /> },
                { label: 'Payments', num: true, cell: (p) => p.payments.length },
                {
                  label: 'Transaction',
                  cell: (p) =>
                    p.tx_id ? <code title={p.tx_id}>{shortId(p.tx_id)}</code> : <span class="muted">—</span>,
                },
                {
                  label: 'Payout',
                  cell: (p) => (
                    <a
                      href={payoutHref(p.payout_id)}
                      title={p.payout_id}
                      onClick={(e) => {
                        if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
                        e.preventDefault();
                        navigate(payoutHref(p.payout_id));
                      }}
                    >
                      <code>{shortId(p.payout_id)}</code>
                      <span class="visually-hidden"> (open payout)</span>
                    </a>
                  ),
                },
              ]}
            />
          )
        }
      </Loaded>
      <Pager label="Payout pages" cursors={cursors} load={load} />
    </div>
  );
}

function ExportCard() {
  const { api } = useDashboard();
  const ids = { from: useId(), to: useId() };
  const [from, setFrom] = useState('');
  const [to, setTo] = useState(dateInputValue(new Date()));
  const [which, setWhich] = useState<'ledger' | 'payouts' | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const gte = from === '' ? undefined : (localMidnight(from) ?? undefined);
  const lt = to === '' ? undefined : (localMidnightAfter(to) ?? undefined);
  const dateError =
    gte !== undefined && lt !== undefined && gte >= lt ? 'The "to" date is before the "from" date.' : null;

  const exporting = useAction(async (file: 'ledger' | 'payouts') => {
    setWhich(file);
    setNote(null);
    const { blob, fileName } = await exportSettlement(api, file, { createdGte: gte, createdLt: lt });
    saveBlob(blob, fileName);
    setNote(`Downloading ${fileName}.`);
  });
  const busy = exporting.busy ? which : null;
  const download = (file: 'ledger' | 'payouts') => exporting.run(file);

  return (
    <div class="card" aria-labelledby="reports-title" role="region">
      <h2 id="reports-title">Reports</h2>
      <p class="muted">
        CSV files for your accounting: the ledger has one row per movement of money (received, fee, paid out,
        refunded…); the payouts file has one row per payment each payout covered, with its transaction.
      </p>
      <div class="filters">
        <div class="field">
          <label for={ids.from}>From</label>
          <input id={ids.from} class="input" type="date" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for={ids.to}>To (included)</label>
          <input
            id={ids.to}
            class="input"
            type="date"
            value={to}
            aria-invalid={dateError ? 'true' : undefined}
            aria-describedby={dateError ? `${ids.to}-error` : undefined}
            onInput={(e) => setTo(e.currentTarget.value)}
          />
        </div>
        <div class="actions">
          <button
            type="button"
            class="button primary"
            disabled={busy !== null || !!dateError}
            onClick={() => void download('ledger')}
          >
            {busy === 'ledger' ? 'Exporting…' : 'Download ledger CSV'}
          </button>
          <button
            type="button"
            class="button secondary"
            disabled={busy !== null || !!dateError}
            onClick={() => void download('payouts')}
          >
            {busy === 'payouts' ? 'Exporting…' : 'Download payouts CSV'}
          </button>
        </div>
      </div>
      <FieldError id={`${ids.to}-error`} message={dateError} alert />
      {note ? <Notice tone="ok">{note}</Notice> : null}
      <FormError
        failure={
          exporting.failure && { ...exporting.failure, message: `The export failed: ${exporting.failure.message}` }
        }
      />
    </div>
  );
}
