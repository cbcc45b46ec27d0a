import { useState } from 'preact/hooks';
import { useDashboard } from '../../context';
import type { components } from '../../../generated/dashboard.js';
import { Badge, Notice } from '../../../kit/Badge.js';
import { CopyButton } from '../../../kit/CopyButton.js';
import { ConfirmDialog } from '../../../kit/Dialog.js';
import { Loaded } from '../../../kit/Loading.js';
import { request, useLoad } from '../../../kit/request.js';
import { Table } from '../../../kit/Table.js';
import { Time } from '../../../kit/Time.js';
import { Amount } from '../parts/money.js';
import { CreateInvoiceDialog } from './CreateInvoiceDialog.js';
import { SequenceForm } from './SequenceForm.js';

export type Invoice = components['schemas']['Invoice'];

/** The status in the merchant's words, with a tone that repeats it. */
const STATUS = {
  open: ['open', 'info'],
  partially_paid: ['partly paid', 'warn'],
  paid: ['paid', 'good'],
  overdue: ['overdue', 'bad'],
  void: ['void', 'neutral'],
} as const;

/**
 * Invoices (issue 35 §3, docs/decisions.md §30.9–§30.12): numbered from the merchant's sequence, each with a
 * printable public page whose "Pay" button goes through the checkout, paid by one payment or several. The list shows
 * what is owed and paid; an invoice can be issued, its page copied and opened, and an unpaid one voided. Viewers read;
 * developers and owners issue, void and change the numbering.
 */
export function Invoices() {
  const { api, role, mode } = useDashboard();
  const [load, reload] = useLoad(
    () => request(api.GET('/v1/dashboard/invoices', { params: { query: { limit: 100 } } })),
    [mode],
  );
  const [creating, setCreating] = useState(false);
  const [voiding, setVoiding] = useState<Invoice | null>(null);
  const [created, setCreated] = useState<Invoice | null>(null);
  const [issued, setIssued] = useState(0);
  const canChange = role !== 'viewer';
  return (
    <section aria-labelledby="invoices-title">
      <h1 id="invoices-title" tabIndex={-1}>
        Invoices
      </h1>
      <p class="muted">
        Send a buyer an invoice: its page can be printed or saved as a PDF, and its “Pay” button goes through the
        checkout. It may be paid in several payments until it is covered.
      </p>
      {canChange && (
        <div class="actions toolbar">
          <button type="button" class="button" onClick={() => setCreating(true)}>
            Create an invoice
          </button>
        </div>
      )}
      {created && (
        <Notice tone="ok">
          Invoice {created.number} created. Send the buyer <a href={created.url}>its page</a>:{' '}
          <CopyButton value={created.url} label="Copy link" />
        </Notice>
      )}
      <Loaded load={load} what="invoices">
        {({ data }) =>
          data.length === 0 ? (
            <p class="muted">No invoices yet.</p>
          ) : (
            <Table
              label="Invoices"
              rows={data}
              rowKey={(i) => i.invoiceId}
              rowData={(i) => ({ 'data-invoice': i.invoiceId })}
              columns={[
                { label: 'Number', cell: (i) => <span class="mono">{i.number}</span> },
                { label: 'Buyer', cell: (i) => i.buyer?.name ?? i.buyer?.email ?? <span class="muted">—</span> },
                { label: 'Total', num: true, cell: (i) => <Amount amount={i.amount} /> },
                { label: 'Paid', num: true, cell: (i) => <Amount amount={i.amountPaid} /> },
                {
                  label: 'Status',
                  cell: (i) => <Badge tone={STATUS[i.status][1]}>{STATUS[i.status][0]}</Badge>,
                },
                { label: 'Due', cell: (i) => <Time value={i.dueAt} /> },
                {
                  label: 'Actions',
                  hideLabel: true,
                  cell: (i) => (
                    <span class="row-buttons">
                      <a class="button secondary small" href={i.url} target="_blank" rel="noopener">
                        Open page<span class="visually-hidden"> of invoice {i.number}</span>
                      </a>
                      <CopyButton value={i.url} label="Copy link" of={i.number} small />
                      {canChange && i.status !== 'void' && i.status !== 'paid' && (
                        <button type="button" class="button secondary small" onClick={() => setVoiding(i)}>
                          Void<span class="visually-hidden"> invoice {i.number}</span>
                        </button>
                      )}
                    </span>
                  ),
                },
              ]}
            />
          )
        }
      </Loaded>
      <SequenceForm canChange={canChange} issued={issued} />
      {creating && (
        <CreateInvoiceDialog
          onClose={() => setCreating(false)}
          onCreated={(invoice) => {
            setCreating(false);
            setCreated(invoice);
            setIssued(issued + 1);
            reload();
          }}
        />
      )}
      {voiding && (
        <ConfirmDialog
          title="Void the invoice"
          confirmLabel="Void invoice"
          danger
          onClose={() => setVoiding(null)}
          onConfirm={async () => {
            await request(
              api.POST('/v1/dashboard/invoices/{id}/void', { params: { path: { id: voiding.invoiceId } } }),
            );
            setVoiding(null);
            reload();
          }}
        >
          <p>
            Void invoice <strong class="mono">{voiding.number}</strong>? Its page will say it is void and it can no
            longer be paid. Its number is not given again.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
