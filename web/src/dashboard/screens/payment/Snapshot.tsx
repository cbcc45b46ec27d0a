/** A payment's facts, stage by stage (processing, succeeded, settled, refunded, failed, cancelled, expired). */
import type { ComponentChildren } from 'preact';
import { Time } from '../../../kit/Time.js';
import type { DashboardChain } from '../../config';
import { Account, Amount, AnyAmount, Network, TokenAmount, Transaction } from '../parts/money.js';
import { currencyCode } from '../parts/format.js';
import type { PaymentSnapshot } from '../parts/requests.js';

function Stage({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="stage" aria-label={title}>
      <h3>{title}</h3>
      <dl class="facts">{children}</dl>
    </section>
  );
}

function Fact({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

export function Snapshot({ payment: p, chains }: { payment: PaymentSnapshot; chains: DashboardChain[] }) {
  const chain = p.processing?.chain_caip2 ?? null;
  return (
    <section class="card" aria-labelledby="snapshot-title">
      <h2 id="snapshot-title">Details</h2>
      <dl class="facts">
        <Fact label="Payment">
          <code class="break">{p.payment_id}</code>
        </Fact>
        <Fact label="Reference">
          <span class="break">{p.reference_id}</span>
        </Fact>
        <Fact label="Amount">
          <Amount amount={p.amount} />
        </Fact>
        <Fact label="Mode">{p.live ? 'Live' : 'Test'}</Fact>
        <Fact label="Created">
          <Time value={p.created_at} />
        </Fact>
        <Fact label="Expires">
          <Time value={p.expires_at} />
        </Fact>
        <Fact label="State version">
          <span class="num">{p.payment_state_version}</span>
        </Fact>
      </dl>
      {p.processing ? (
        <Stage title="Processing">
          <Fact label="At">
            <Time value={p.processing.processing_at} />
          </Fact>
          <Fact label="Paid with">
            <TokenAmount chains={chains} amount={p.processing.option_amount} />
            {currencyCode(p.amount.unit) ? (
              <span class="muted">
                {' '}
                (<Amount amount={p.amount} />)
              </span>
            ) : null}
          </Fact>
          <Fact label="Settlement">
            <AnyAmount chains={chains} amount={p.processing.settlement_amount} />
          </Fact>
          <Fact label="Fee">
            {p.processing.fee ? <AnyAmount chains={chains} amount={p.processing.fee.total_amount} /> : 'None'}
          </Fact>
          <Fact label="Buyer">
            <Account caip10={p.processing.buyer_caip10} />
          </Fact>
          <Fact label="Network">
            <Network chains={chains} caip2={p.processing.chain_caip2} />
          </Fact>
        </Stage>
      ) : null}
      {p.success ? (
        <Stage title="Succeeded">
          <Fact label="At">
            <Time value={p.success.succeeded_at} />
          </Fact>
          <Fact label="Transaction">
            <Transaction chains={chains} caip2={chain} txId={p.success.tx_id} />
          </Fact>
        </Stage>
      ) : null}
      {p.settled ? (
        <Stage title="Settled">
          <Fact label="At">
            <Time value={p.settled.settled_at} />
          </Fact>
          <Fact label="Amount">
            <AnyAmount chains={chains} amount={p.settled.settlement_amount} />
          </Fact>
        </Stage>
      ) : null}
      {p.refunded ? (
        <Stage title="Refunded">
          <Fact label="At">
            <Time value={p.refunded.refunded_at} />
          </Fact>
          <Fact label="Reason">{p.refunded.reason ?? '—'}</Fact>
        </Stage>
      ) : null}
      {p.failed ? (
        <Stage title="Failed">
          <Fact label="At">
            <Time value={p.failed.failed_at} />
          </Fact>
          <Fact label="Reason">{p.failed.failure_reason}</Fact>
        </Stage>
      ) : null}
      {p.cancelled ? (
        <Stage title="Cancelled">
          <Fact label="At">
            <Time value={p.cancelled.cancelled_at} />
          </Fact>
          <Fact label="By">{p.cancelled.cancelled_by}</Fact>
          <Fact label="Reason">{p.cancelled.cancellation_reason ?? '—'}</Fact>
        </Stage>
      ) : null}
      {p.expired ? (
        <Stage title="Expired">
          <Fact label="At">
            <Time value={p.expired.expired_at} />
          </Fact>
        </Stage>
      ) : null}
    </section>
  );
}
