import { useEffect, useState } from 'preact/hooks';
import { useDashboard } from '../../context';
import { Notice } from '../../../kit/Badge.js';
import { Field, FormError } from '../../../kit/Field.js';
import { FailureError, localFailure } from '../../../kit/failure.js';
import { Loaded } from '../../../kit/Loading.js';
import { request, useAction, useLoad } from '../../../kit/request.js';

/**
 * The numbering of the mode's invoices: a prefix and the next number (which only moves forward, so a number is never
 * given twice). Viewers see it; developers and owners change it.
 */
export function SequenceForm(props: {
  canChange: boolean;
  /** Changes when an invoice is created: read again. */ issued: number;
}) {
  const { api, mode } = useDashboard();
  const [load, , replace] = useLoad(() => request(api.GET('/v1/dashboard/invoice-sequence')), [mode, props.issued]);
  const [prefix, setPrefix] = useState('');
  const [next, setNext] = useState('');
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (load.state !== 'ready') return;
    setPrefix(load.data.prefix);
    setNext(String(load.data.nextNumber));
  }, [load]);
  useEffect(() => setSaved(false), [props.issued]);
  const save = useAction(async () => {
    setSaved(false);
    const nextNumber = Number(next);
    if (!/^[0-9]{1,12}$/.test(next.trim()) || nextNumber < 1) {
      throw new FailureError(localFailure('Enter a whole number of 1 or more.', 'nextNumber'));
    }
    replace(await request(api.POST('/v1/dashboard/invoice-sequence', { body: { prefix, nextNumber } })));
    setSaved(true);
  });
  return (
    <section aria-labelledby="invoice-numbering-title">
      <h2 id="invoice-numbering-title">Numbering</h2>
      <Loaded load={load} what="the numbering">
        {(sequence) =>
          props.canChange ? (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void save.run();
              }}
              noValidate
            >
              <FormError failure={save.failure} fields={['prefix', 'nextNumber']} />
              <Field
                label="Prefix"
                name="prefix"
                hint="Letters, digits and _ . / - (up to 20), e.g. INV- or 2026-."
                maxLength={20}
                value={prefix}
                failure={save.failure}
                onInput={(e) => setPrefix(e.currentTarget.value)}
              />
              <Field
                label="Next number"
                name="nextNumber"
                hint="It can only move forward, so a number already given is never given again."
                inputMode="numeric"
                value={next}
                failure={save.failure}
                onInput={(e) => setNext(e.currentTarget.value)}
              />
              <div class="actions">
                <button type="submit" class="button secondary" disabled={save.busy}>
                  Save numbering
                </button>
              </div>
              {saved && (
                <Notice tone="ok">
                  Saved. The next invoice is {sequence.prefix + String(sequence.nextNumber).padStart(4, '0')}.
                </Notice>
              )}
            </form>
          ) : (
            <p>
              The next invoice is numbered{' '}
              <strong class="mono">{sequence.prefix + String(sequence.nextNumber).padStart(4, '0')}</strong>.
            </p>
          )
        }
      </Loaded>
    </section>
  );
}
