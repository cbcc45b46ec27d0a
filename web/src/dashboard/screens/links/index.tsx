import { useState } from 'preact/hooks';
import { useDashboard } from '../../context';
import type { components } from '../../../generated/dashboard.js';
import { Badge } from '../../../kit/Badge.js';
import { Dialog } from '../../../kit/Dialog.js';
import { Loaded } from '../../../kit/Loading.js';
import { request, useLoad } from '../../../kit/request.js';
import { Table } from '../../../kit/Table.js';
import { Amount } from '../parts/money.js';
import { CreateLinkDialog } from './CreateLinkDialog.js';
import { LinkQr } from './LinkQr.js';

export type PaymentLink = components['schemas']['PaymentLink'];

/** The Payments screen, filtered by the link through its URL query (screens/Payments.tsx). */
const paymentsOf = (linkId: string) => `/dashboard/payments?link=${encodeURIComponent(linkId)}`;

const STATE_TONE = { active: 'good', deactivated: 'bad', expired: 'warn', used_up: 'warn' } as const;
const STATE_TEXT = { active: 'active', deactivated: 'deactivated', expired: 'expired', used_up: 'used up' } as const;

/**
 * Payment links (issue 35 §2, docs/decisions.md §30.5): reusable links whose every visit creates a payment, for a
 * merchant without a checkout of their own. The list shows each link's price, uses and what it has taken; a link
 * can be shared (QR code, copy, download) and deactivated, and "View payments" opens the Payments screen filtered by
 * the link (docs/decisions.md §30.8). Viewers read; developers and owners create and change.
 */
export function Links() {
  const { api, role, mode, navigate } = useDashboard();
  const [load, reload] = useLoad(
    () => request(api.GET('/v1/dashboard/payment-links', { params: { query: { limit: 100 } } })),
    [mode],
  );
  const [creating, setCreating] = useState(false);
  const [sharing, setSharing] = useState<PaymentLink | null>(null);
  const canChange = role !== 'viewer';
  const deactivate = async (link: PaymentLink) => {
    await request(
      api.POST('/v1/dashboard/payment-links/{linkId}/deactivate', { params: { path: { linkId: link.id } } }),
    );
    reload();
  };
  return (
    <section aria-labelledby="links-title">
      <h1 id="links-title" tabIndex={-1}>
        Payment links
      </h1>
      <p class="muted">
        Share a link (or print its QR code): each visit starts a payment and continues to the checkout. No code needed.
      </p>
      {canChange && (
        <div class="actions toolbar">
          <button type="button" class="button" onClick={() => setCreating(true)}>
            Create a link
          </button>
        </div>
      )}
      <Loaded load={load}>
        {({ data }) => (
          <>
            {data.length === 0 ? (
              <p class="muted">No payment links yet.</p>
            ) : (
              <Table
                label="Payment links"
                rows={data}
                rowKey={(link) => link.id}
                columns={[
                  { label: 'Description', cell: (link) => link.description },
                  {
                    label: 'Price',
                    cell: (link) =>
                      link.amount !== null ? (
                        <>
                          <Amount amount={{ unit: link.currency, value: link.amount }} />
                          {link.adjustableQuantity && ' each'}
                        </>
                      ) : (
                        <>
                          <Amount amount={{ unit: link.currency, value: link.minAmount ?? '0' }} /> to{' '}
                          <Amount amount={{ unit: link.currency, value: link.maxAmount ?? '0' }} />
                        </>
                      ),
                  },
                  {
                    label: 'Uses',
                    num: true,
                    cell: (link) => `${link.uses}${link.maxUses !== null ? ` of ${link.maxUses}` : ''}`,
                  },
                  {
                    label: 'Paid',
                    cell: (link) => (
                      <>
                        {link.totals.succeeded} ·{' '}
                        <Amount amount={{ unit: link.currency, value: link.totals.succeededAmount }} />
                      </>
                    ),
                  },
                  {
                    label: 'State',
                    cell: (link) => <Badge tone={STATE_TONE[link.state]}>{STATE_TEXT[link.state]}</Badge>,
                  },
                  {
                    label: 'Actions',
                    hideLabel: true,
                    cell: (link) => (
                      <span class="row-buttons">
                        <button type="button" class="button secondary small" onClick={() => setSharing(link)}>
                          Share<span class="visually-hidden"> {link.description}</span>
                        </button>
                        <a
                          class="button secondary small"
                          href={paymentsOf(link.id)}
                          data-link-payments={link.id}
                          onClick={(e) => {
                            if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
                            e.preventDefault();
                            navigate(paymentsOf(link.id));
                          }}
                        >
                          View payments<span class="visually-hidden"> of {link.description}</span>
                        </a>
                        {canChange && link.active && (
                          <button type="button" class="button secondary small" onClick={() => void deactivate(link)}>
                            Deactivate<span class="visually-hidden"> {link.description}</span>
                          </button>
                        )}
                      </span>
                    ),
                  },
                ]}
              />
            )}
          </>
        )}
      </Loaded>
      {creating && (
        <CreateLinkDialog
          onClose={() => setCreating(false)}
          onCreated={(link) => {
            setCreating(false);
            setSharing(link);
            reload();
          }}
        />
      )}
      {sharing && (
        <Dialog title="Share the payment link" onClose={() => setSharing(null)}>
          <div class="dialog-body">
            <p>{sharing.description}</p>
            <LinkQr url={sharing.url} id={sharing.id} />
            <div class="actions">
              <button type="button" class="button secondary" onClick={() => setSharing(null)}>
                Close
              </button>
            </div>
          </div>
        </Dialog>
      )}
    </section>
  );
}
