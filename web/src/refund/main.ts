/**
 * A refund's claim page (docs/decisions.md §22.6): the token is the link's fragment, which no request carries; the
 * page sends it in the body of the gateway's two open operations, shows the refund, and posts the buyer's address.
 */
import { formatAmount } from './amount.js';
import './styles.css';
import { byId, messageOf } from '../standalone/dom.js';

interface Claim {
  refundId: string;
  amount: { value: string; display: { assetSymbol: string; decimals: number; networkName?: string | null } };
  chain: string;
  state: string;
  destination: string | null;
  claimExpiresAt: number;
}

const token = decodeURIComponent(location.hash.slice(1));
const form = byId<HTMLFormElement>('form');
const submit = byId<HTMLButtonElement>('submit');
const formError = byId('form-error');

async function post(operation: 'lookup' | 'claim', body: object): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`/v1/gateway/refund-claims/${operation}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

function fail(message: string): void {
  byId('loading').hidden = true;
  form.hidden = true;
  byId('failed-text').textContent = message;
  byId('failed').hidden = false;
}

function show(claim: Claim): void {
  const network = claim.amount.display.networkName || claim.chain;
  byId('amount').textContent = formatAmount(
    claim.amount.value,
    claim.amount.display.decimals,
    claim.amount.display.assetSymbol,
  );
  byId('network').textContent = network;
  byId('network-label').textContent = network;
  byId('expires').textContent = new Date(claim.claimExpiresAt * 1000).toLocaleString();
  byId('loading').hidden = true;
  form.hidden = false;
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const address = byId<HTMLInputElement>('address').value.trim();
  formError.hidden = true;
  if (address === '') {
    formError.textContent = 'Enter your address.';
    formError.hidden = false;
    return;
  }
  submit.disabled = true;
  post('claim', { token, address }).then(
    ({ status, body }) => {
      if (status === 200) {
        form.hidden = true;
        byId('destination').textContent = (body as Claim).destination ?? address;
        byId('done').hidden = false;
      } else if (status === 400) {
        submit.disabled = false;
        formError.textContent = messageOf(body, 'This address cannot be used.');
        formError.hidden = false;
      } else fail(messageOf(body, 'Something went wrong; try again later.'));
    },
    () => {
      submit.disabled = false;
      formError.textContent = 'The server could not be reached; try again.';
      formError.hidden = false;
    },
  );
});

if (token === '') fail('This link is incomplete: open the whole link the merchant sent you.');
else
  post('lookup', { token }).then(
    ({ status, body }) => (status === 200 ? show(body as Claim) : fail(messageOf(body, 'This link cannot be used.'))),
    () => fail('The server could not be reached; reload the page to try again.'),
  );
