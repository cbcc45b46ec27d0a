import { useState } from 'preact/hooks';
import { showFiat } from '../../kit/amounts.js';
import { QrCode } from '../../kit/Qr.js';
import type { PosPayment } from '../api.js';
import { digitsOf } from '../amounts.js';

/**
 * The QR codes for the buyer's phone, one at a time and as large as the screen allows: the hosted checkout link
 * (any wallet's camera), Solana Pay and the EIP-681 URIs where the settlement mode gives them, as the checkout does.
 */
export function Paying(props: { sale: PosPayment; online: boolean; onCancel(): void }) {
  const { sale } = props;
  const codes = [
    { id: 'link', label: 'Checkout link', value: sale.paymentLink },
    ...(sale.solanaPayLink ? [{ id: 'solana', label: 'Solana Pay', value: sale.solanaPayLink }] : []),
    ...sale.paymentUris.map((u, i) => ({ id: `uri${i}`, label: u.label, value: u.uri })),
  ];
  const [shown, setShown] = useState(codes[0]!.id);
  const code = codes.find((c) => c.id === shown) ?? codes[0]!;
  const currency = sale.amount.unit.slice('iso4217/'.length);
  const total = showFiat(sale.amount.value, currency, digitsOf(currency));
  return (
    <main class="pos-paying">
      <h1>Scan to pay {total}</h1>
      {codes.length > 1 && (
        <div class="pos-tabs" role="group" aria-label="Pay with">
          {codes.map((c) => (
            <button
              type="button"
              key={c.id}
              class="button secondary"
              aria-pressed={c.id === code.id}
              onClick={() => setShown(c.id)}
            >
              {c.label}
            </button>
          ))}
        </div>
      )}
      <div class="pos-qr">
        <QrCode value={code.value} label={`QR code: ${code.label}`} />
      </div>
      <p role="status" class="pos-waiting">
        {props.online
          ? 'Waiting for the payment…'
          : 'Offline: the payment’s status is unknown until the connection is back.'}
      </p>
      <button type="button" class="button secondary" onClick={props.onCancel}>
        New sale
      </button>
    </main>
  );
}
