import { useState } from 'preact/hooks';
import { useDashboard } from '../../context';
import { Field } from '../../../kit/Field.js';
import { CurrencyField, FormDialog } from '../../../kit/FormDialog.js';
import { request, useAction } from '../../../kit/request.js';
import { currencyDigits } from '../parts/format.js';
import { minorUnitsOf } from './minorUnits.js';
import type { PaymentLink } from './index.js';

type Pricing = 'fixed' | 'buyer';

/** Create a link: what it sells, a fixed price (optionally per unit) or an amount the buyer chooses, and limits. */
export function CreateLinkDialog(props: { onClose(): void; onCreated(link: PaymentLink): void }) {
  const { api } = useDashboard();
  const [pricing, setPricing] = useState<Pricing>('fixed');
  const [description, setDescription] = useState('');
  const [currency, setCurrency] = useState('USD');
  const [amount, setAmount] = useState('');
  const [min, setMin] = useState('');
  const [max, setMax] = useState('');
  const [quantity, setQuantity] = useState(false);
  const [maxUses, setMaxUses] = useState('');
  const [ownError, setOwnError] = useState<string | null>(null);
  const create = useAction(async () => {
    const code = currency.trim().toUpperCase();
    const digits = currencyDigits(code);
    const minor = (text: string) => minorUnitsOf(text, digits);
    const price: Record<string, string | null> =
      pricing === 'fixed' ? { amount: minor(amount) } : { minAmount: minor(min), maxAmount: minor(max) };
    if (Object.values(price).some((v) => v === null)) {
      setOwnError(`Enter amounts in ${code}, like 12.50.`);
      return;
    }
    setOwnError(null);
    const uses = maxUses.trim() === '' ? {} : { maxUses: Number(maxUses) };
    props.onCreated(
      await request(
        api.POST('/v1/dashboard/payment-links', {
          body: {
            currency: `iso4217/${code}`,
            description: description.trim(),
            ...(price as Record<string, string>),
            ...(pricing === 'fixed' && quantity ? { adjustableQuantity: true } : {}),
            ...uses,
          },
        }),
      ),
    );
  });
  const failure = create.failure;
  return (
    <FormDialog
      title="Create a payment link"
      action={create}
      fields={['description', 'currency', 'amount', 'minAmount', 'maxAmount']}
      submitLabel="Create link"
      onClose={props.onClose}
    >
      <Field
        label="What it is for"
        name="description"
        hint="Shown to the buyer, e.g. “Support the community radio”."
        maxLength={1000}
        required
        value={description}
        failure={failure}
        onInput={(e) => setDescription(e.currentTarget.value)}
      />
      <CurrencyField value={currency} failure={failure} onValue={setCurrency} />
      <fieldset>
        <legend>Price</legend>
        <label class="check">
          <input type="radio" name="pricing" checked={pricing === 'fixed'} onChange={() => setPricing('fixed')} />
          <span>A fixed price</span>
        </label>
        <label class="check">
          <input type="radio" name="pricing" checked={pricing === 'buyer'} onChange={() => setPricing('buyer')} />
          <span>The buyer chooses (donations, tips)</span>
        </label>
      </fieldset>
      {pricing === 'fixed' ? (
        <>
          <Field
            label="Price"
            name="amount"
            inputMode="decimal"
            value={amount}
            failure={failure}
            error={ownError}
            onInput={(e) => setAmount(e.currentTarget.value)}
          />
          <label class="check">
            <input type="checkbox" checked={quantity} onChange={(e) => setQuantity(e.currentTarget.checked)} />
            <span>Let the buyer choose a quantity</span>
          </label>
        </>
      ) : (
        <>
          <Field
            label="Minimum"
            name="minAmount"
            inputMode="decimal"
            value={min}
            failure={failure}
            error={ownError}
            onInput={(e) => setMin(e.currentTarget.value)}
          />
          <Field
            label="Maximum"
            name="maxAmount"
            inputMode="decimal"
            value={max}
            failure={failure}
            onInput={(e) => setMax(e.currentTarget.value)}
          />
        </>
      )}
      <Field
        label="Maximum number of payments (optional)"
        name="maxUses"
        inputMode="numeric"
        value={maxUses}
        failure={failure}
        onInput={(e) => setMaxUses(e.currentTarget.value)}
      />
    </FormDialog>
  );
}
