/**
 * One payout: its state, amounts, destination and transaction (copied, never linked: no request to another site),
 * and the payments it covered, each linking to the payment.
 */
import type { DashboardChain } from '../config';
import { useDashboard } from '../context';
import { CopyButton } from '../../kit/CopyButton.js';
import { Loaded } from '../../kit/Loading.js';
import { useLoad } from '../../kit/request.js';
import { Table } from '../../kit/Table.js';
import { Time } from '../../kit/Time.js';
import { getPayout } from './parts/requests.js';
import { TokenAmount, chainName } from './parts/money.js';
import { PayoutState } from './parts/PayoutState.js';

const paymentHref = (id: string) => `/dashboard/payments/${encodeURIComponent(id)}`;

const STATE_TEXT: Record<string, string> = {
  planned: 'Written, not sent yet.',
  sent: 'The transaction is on its way; it becomes final at the chain’s finality.',
  final: 'In a finalized block. The payments it covered are settled.',
  failed: 'The chain refused it. Its payments stay owed and go into a later payout.',
};

export function PayoutDetail(props: { payoutId: string; chains: DashboardChain[] }) {
  const { api, mode, navigate } = useDashboard();
  const [load] = useLoad(() => getPayout(api, props.payoutId), [api, mode, props.payoutId]);

  return (
    <section class="screen" aria-labelledby="payout-title">
      <p>
        <a href="/dashboard/balances">← Balances &amp; payouts</a>
      </p>
      <h1 id="payout-title" tabIndex={-1}>
        Payout <code>{props.payoutId}</code>
      </h1>
      <Loaded load={load} what="the payout" notFound={`There is no ${mode}-mode payout with this id.`}>
        {(payout) => (
          <>
            <div class="card">
              <dl class="facts">
                <dt>State</dt>
                <dd>
                  <PayoutState state={payout.state} /> <span class="muted">{STATE_TEXT[payout.state]}</span>
                </dd>
                <dt>Network</dt>
                <dd>{chainName(props.chains, payout.chain_caip2)}</dd>
                <dt>Paid out</dt>
                <dd>
                  <TokenAmount chains={props.chains} amount={payout.net} />
                </dd>
                <dt>Fee</dt>
                <dd>
                  <TokenAmount chains={props.chains} amount={payout.fee} />
                </dd>
                <dt>Gross</dt>
                <dd>
                  <TokenAmount chains={props.chains} amount={payout.gross} />
                </dd>
                <dt>Destination</dt>
                <dd class="break">
                  <code>{payout.destination}</code>
                </dd>
                <dt>Transaction</dt>
                <dd class="break">
                  {payout.tx_id ? (
                    <>
                      <code>{payout.tx_id}</code> <CopyButton value={payout.tx_id} label="Copy transaction id" />
                    </>
                  ) : (
                    <span class="muted">Not sent yet</span>
                  )}
                </dd>
                <dt>Created</dt>
                <dd>
                  <Time value={payout.created_at} />
                </dd>
                <dt>Sent</dt>
                <dd>
                  <Time value={payout.sent_at} />
                </dd>
                <dt>Final</dt>
                <dd>
                  <Time value={payout.final_at} />
                </dd>
              </dl>
            </div>
            <div class="card" role="region" aria-labelledby="payout-payments">
              <h2 id="payout-payments">Payments covered</h2>
              {payout.payments.length === 0 ? (
                <p class="empty">None: a failed payout gives its payments back to the next one.</p>
              ) : (
                <Table
                  label="Payments covered table"
                  rows={payout.payments}
                  rowKey={(p) => p.payment_id}
                  rowData={(p) => ({ 'data-payment': p.payment_id })}
                  open={(p) => navigate(paymentHref(p.payment_id))}
                  columns={[
                    {
                      label: 'Payment',
                      cell: (p) => (
                        <a
                          href={paymentHref(p.payment_id)}
                          onClick={(e) => {
                            if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
                            e.preventDefault();
                            navigate(paymentHref(p.payment_id));
                          }}
                        >
                          <code>{p.payment_id}</code>
                        </a>
                      ),
                    },
                    { label: 'Gross', num: true, cell: (p) => <TokenAmount chains={props.chains} amount={p.gross} /> },
                    { label: 'Fee', num: true, cell: (p) => <TokenAmount chains={props.chains} amount={p.fee} /> },
                    { label: 'Net', num: true, cell: (p) => <TokenAmount chains={props.chains} amount={p.net} /> },
                  ]}
                />
              )}
            </div>
          </>
        )}
      </Loaded>
    </section>
  );
}
