import { useState } from 'preact/hooks';
import type { Translate } from '../../i18n.js';

/** "Cancel payment", asked once more before the gateway is told. */
export function Cancel(props: { t: Translate; onCancel: () => void; disabled: boolean }) {
  const [asking, setAsking] = useState(false);
  const { t } = props;
  return (
    <section class="cancel">
      {asking ? (
        <div role="group" aria-label={t('cancel.confirm')}>
          <p>{t('cancel.confirm')}</p>
          <button type="button" class="danger" onClick={props.onCancel}>
            {t('cancel.yes')}
          </button>
          <button type="button" class="secondary" onClick={() => setAsking(false)}>
            {t('cancel.no')}
          </button>
        </div>
      ) : (
        <button type="button" class="link" disabled={props.disabled} onClick={() => setAsking(true)}>
          {t('cancel.button')}
        </button>
      )}
    </section>
  );
}
