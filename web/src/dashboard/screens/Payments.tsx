/**
 * Payments: the merchant's payments of the current mode, newest first, filtered by status, creation date range (local
 * days), reference, settlement and payment link (`?link=plink_…`, from the Payment links screen); the filters live in the URL query (so a filtered list can be bookmarked or
 * shared), paging keeps a stack of cursors. "Export CSV" downloads the same filters through the API (fetch with the
 * dashboard's headers → Blob → a download link), named from Content-Disposition.
 */
import { useId, useState } from 'preact/hooks';
import { useDashboard } from '../context.js';
import { Notice, StatusBadge } from '../../kit/Badge.js';
import { paymentStatusWord } from './parts/statusWords.js';
import { fieldMessage } from '../../kit/failure.js';
import { FieldError, FormError } from '../../kit/Field.js';
import { Loading } from '../../kit/Loading.js';
import { Pager, useCursors } from '../../kit/Pager.js';
import { loaded, useAction, useLoad } from '../../kit/request.js';
import { Table } from '../../kit/Table.js';
import { Time } from '../../kit/Time.js';
import { localMidnight, localMidnightAfter, shortId } from './parts/format.js';
import { Amount } from './parts/money.js';
import { exportPayments, saveBlob, listPayments, type PaymentFilters, type PaymentStatus } from './parts/requests.js';

export const PAYMENT_STATUSES = [
  'requires_action',
  'processing',
  'succeeded',
  'failed',
  'expired',
  'cancelled',
] as const satisfies readonly PaymentStatus[];

/** The filters as the form and the URL query hold them (strings; empty = not filtered). */
export interface FilterForm {
  status: string;
  from: string;
  to: string;
  reference: string;
  settled: string;
  q: string;
  /** A payment link's id: set by the Payment links screen's "View payments", not a field of the form. */
  link: string;
}

const EMPTY: FilterForm = { status: '', from: '', to: '', reference: '', settled: '', q: '', link: '' };
const KEYS = Object.keys(EMPTY) as (keyof FilterForm)[];

export function formFromQuery(search: string): FilterForm {
  const query = new URLSearchParams(search);
  const form = { ...EMPTY };
  for (const key of KEYS) form[key] = query.get(key) ?? '';
  return form;
}

export function queryFromForm(form: FilterForm): string {
  const query = new URLSearchParams();
  for (const key of KEYS) if (form[key].trim() !== '') query.set(key, form[key].trim());
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/** The API's filters: dates become Unix seconds of local midnight (the "to" day is included). */
export function filtersOf(form: FilterForm): PaymentFilters {
  const filters: PaymentFilters = {};
  if ((PAYMENT_STATUSES as readonly string[]).includes(form.status)) filters.status = form.status as PaymentStatus;
  if (form.settled === 'true' || form.settled === 'false') filters.settled = form.settled === 'true';
  const gte = localMidnight(form.from);
  if (gte !== null) filters.createdGte = gte;
  const lt = localMidnightAfter(form.to);
  if (lt !== null) filters.createdLt = lt;
  if (form.reference.trim() !== '') filters.referenceId = form.reference.trim();
  if (form.q.trim() !== '') filters.q = form.q.trim();
  if (form.link.trim() !== '') filters.linkId = form.link.trim();
  return filters;
}

const paymentHref = (id: string) => `/dashboard/payments/${encodeURIComponent(id)}`;

export function Payments() {
  const { api, mode, navigate } = useDashboard();
  const [form, setForm] = useState<FilterForm>(() => formFromQuery(location.search));
  const [applied, setApplied] = useState<FilterForm>(form);
  const cursors = useCursors();
  const [exportNote, setExportNote] = useState<string | null>(null);
  const ids = { status: useId(), from: useId(), to: useId(), reference: useId(), settled: useId(), q: useId() };
  const { cursor } = cursors;
  const dateError =
    form.from !== '' && form.to !== '' && form.to < form.from ? 'The end date is before the start date.' : null;

  const [load] = useLoad(() => listPayments(api, filtersOf(applied), cursor), [api, mode, applied, cursor]);
  const page = loaded(load);
  const failure = load.state === 'failed' ? load.failure : null;

  const apply = (next: FilterForm) => {
    setApplied(next);
    cursors.reset();
    history.replaceState(history.state, '', `${location.pathname}${queryFromForm(next)}`);
  };

  const exporting = useAction(async () => {
    setExportNote(null);
    const { blob, fileName } = await exportPayments(api, filtersOf(applied));
    saveBlob(blob, fileName);
    setExportNote(`Downloading ${fileName}.`);
  });

  return (
    <section class="screen" aria-labelledby="payments-title">
      <header class="screen-head">
        <h1 id="payments-title" tabIndex={-1}>
          Payments
        </h1>
        <button type="button" class="button secondary" disabled={exporting.busy} onClick={() => void exporting.run()}>
          {exporting.busy ? 'Exporting…' : 'Export CSV'}
        </button>
      </header>
      {exportNote ? <Notice tone="ok">{exportNote}</Notice> : null}
      <FormError
        failure={
          exporting.failure && { ...exporting.failure, message: `The export failed: ${exporting.failure.message}` }
        }
      />
      <form
        class="card filters"
        aria-label="Filter payments"
        onSubmit={(e) => {
          e.preventDefault();
          if (!dateError) apply(form);
        }}
      >
        <div class="field">
          <label for={ids.status}>Status</label>
          <select
            id={ids.status}
            class="input"
            value={form.status}
            onChange={(e) => setForm({ ...form, status: e.currentTarget.value })}
          >
            <option value="">Any status</option>
            {PAYMENT_STATUSES.map((s) => (
              <option key={s} value={s}>
                {paymentStatusWord(s)}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={ids.from}>Created from</label>
          <input
            id={ids.from}
            class="input"
            type="date"
            value={form.from}
            onInput={(e) => setForm({ ...form, from: e.currentTarget.value })}
          />
          <FieldError id={`${ids.from}-error`} message={fieldMessage(failure, 'createdGte')} />
        </div>
        <div class="field">
          <label for={ids.to}>Created to (included)</label>
          <input
            id={ids.to}
            class="input"
            type="date"
            value={form.to}
            aria-invalid={dateError ? 'true' : undefined}
            aria-describedby={dateError ? `${ids.to}-error` : undefined}
            onInput={(e) => setForm({ ...form, to: e.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for={ids.reference}>Reference</label>
          <input
            id={ids.reference}
            class="input"
            type="search"
            value={form.reference}
            placeholder="Exact reference id"
            aria-invalid={fieldMessage(failure, 'referenceId') ? 'true' : undefined}
            aria-describedby={fieldMessage(failure, 'referenceId') ? `${ids.reference}-error` : undefined}
            onInput={(e) => setForm({ ...form, reference: e.currentTarget.value })}
          />
          <FieldError id={`${ids.reference}-error`} message={fieldMessage(failure, 'referenceId')} />
        </div>
        <div class="field">
          <label for={ids.q}>Search</label>
          <input
            id={ids.q}
            class="input"
            type="search"
            value={form.q}
            placeholder="Words of the description or metadata"
            aria-invalid={fieldMessage(failure, 'q') ? 'true' : undefined}
            aria-describedby={fieldMessage(failure, 'q') ? `${ids.q}-error` : undefined}
            onInput={(e) => setForm({ ...form, q: e.currentTarget.value })}
          />
          <FieldError id={`${ids.q}-error`} message={fieldMessage(failure, 'q')} />
        </div>
        <div class="field">
          <label for={ids.settled}>Settled</label>
          <select
            id={ids.settled}
            class="input"
            value={form.settled}
            onChange={(e) => setForm({ ...form, settled: e.currentTarget.value })}
          >
            <option value="">Either</option>
            <option value="true">Settled</option>
            <option value="false">Not settled</option>
          </select>
        </div>
        <div class="actions">
          <button type="submit" class="button primary" disabled={!!dateError}>
            Apply filters
          </button>
          <button
            type="button"
            class="button secondary"
            onClick={() => {
              setForm(EMPTY);
              apply(EMPTY);
            }}
          >
            Clear
          </button>
        </div>
        <FieldError id={`${ids.to}-error`} message={dateError} alert />
      </form>
      {applied.link !== '' ? (
        <Notice>
          <span data-testid="payments-link-filter">
            Only the payments of the payment link <code>{applied.link}</code>.
          </span>{' '}
          <button
            type="button"
            class="button secondary small"
            onClick={() => {
              const next = { ...applied, link: '' };
              setForm({ ...form, link: '' });
              apply(next);
            }}
          >
            Show every payment
          </button>
        </Notice>
      ) : null}
      <FormError failure={failure} fields={['referenceId', 'createdGte', 'q', 'linkId']} />
      <div class="card">
        {page === null ? (
          failure ? null : (
            <Loading what="payments" />
          )
        ) : page.data.length === 0 ? (
          <p class="empty" data-testid="payments-empty">
            {queryFromForm(applied) === '' ? `No ${mode}-mode payments yet.` : 'No payment matches these filters.'}
          </p>
        ) : (
          <Table
            label="Payments"
            rows={page.data}
            rowKey={(p) => p.payment_id}
            rowData={(p) => ({ 'data-payment': p.payment_id })}
            open={(p) => navigate(paymentHref(p.payment_id))}
            columns={[
              { label: 'Created', cell: (p) => <Time value={p.created_at} /> },
              { label: 'Reference', cell: (p) => <span class="break">{p.reference_id}</span> },
              { label: 'Amount', num: true, cell: (p) => <Amount amount={p.amount} /> },
              {
                label: 'Status',
                cell: (p) => (
                  <span>
                    <StatusBadge status={p.status} label={paymentStatusWord(p.status)} />
                    {p.refunded ? (
                      <>
                        {' '}
                        <StatusBadge status="refunded" label={paymentStatusWord('refunded')} />
                      </>
                    ) : null}
                  </span>
                ),
              },
              { label: 'Settled', cell: (p) => (p.settled ? <Time value={p.settled.settled_at} /> : 'No') },
              {
                label: 'Payment',
                cell: (p) => (
                  <a
                    href={paymentHref(p.payment_id)}
                    title={p.payment_id}
                    onClick={(e) => {
                      if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
                      e.preventDefault();
                      navigate(paymentHref(p.payment_id));
                    }}
                  >
                    <code>{shortId(p.payment_id)}</code>
                    <span class="visually-hidden"> (open payment {p.reference_id})</span>
                  </a>
                ),
              },
            ]}
          />
        )}
        <Pager label="Payments pages" cursors={cursors} load={load} />
      </div>
    </section>
  );
}
