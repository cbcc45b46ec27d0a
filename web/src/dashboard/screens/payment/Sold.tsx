/**
 * What was sold (issue 35 §1): the payment's description, its lines with their totals, the buyer the merchant named
 * and its metadata. Shown only when the payment has any of them; snapshots stored before they existed lack the keys.
 */
import { Amount } from '../parts/money.js';
import type { PaymentSnapshot } from '../parts/requests.js';

export function Sold({ payment: p }: { payment: PaymentSnapshot }) {
  const lines = p.line_items ?? [];
  const metadata = Object.entries(p.metadata ?? {});
  const buyer = p.buyer ?? null;
  if (!p.description && lines.length === 0 && !buyer && metadata.length === 0) return null;
  const money = (value: bigint) => ({ unit: p.amount.unit, value: value.toString() });
  return (
    <section class="card" aria-labelledby="sold-title">
      <h2 id="sold-title">What was sold</h2>
      {p.description ? (
        <p class="break pre-line" data-testid="payment-description">
          {p.description}
        </p>
      ) : null}
      {lines.length > 0 ? (
        <div class="table-wrap flat">
          <table class="table line-items">
            <caption class="visually-hidden">Line items</caption>
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col" class="num">
                  Quantity
                </th>
                <th scope="col" class="num">
                  Unit price
                </th>
                <th scope="col" class="num">
                  Total
                </th>
              </tr>
            </thead>
            <tbody>
              {lines.map((line, i) => (
                <tr key={i}>
                  <th scope="row" class="break">
                    {line.name}
                  </th>
                  <td class="num">{line.quantity}</td>
                  <td class="num">
                    <Amount amount={money(BigInt(line.unit_amount))} />
                  </td>
                  <td class="num">
                    <Amount amount={money(BigInt(line.unit_amount) * BigInt(line.quantity))} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <dl class="facts">
        {buyer?.name ? (
          <>
            <dt>Buyer</dt>
            <dd class="break">{buyer.name}</dd>
          </>
        ) : null}
        {buyer?.email ? (
          <>
            <dt>Buyer email</dt>
            <dd class="break">{buyer.email}</dd>
          </>
        ) : null}
        {metadata.map(([key, value]) => (
          <>
            <dt>
              <code>{key}</code>
            </dt>
            <dd class="break">{value}</dd>
          </>
        ))}
      </dl>
    </section>
  );
}
