import { useState } from 'preact/hooks';
import type { DashboardChain } from '../config';
import { useDashboard, useShell } from '../context';
import type { Settings as MerchantSettings } from '../schemas';
import { ConfirmDialog } from '../../kit/Dialog.js';
import { Field, FormError } from '../../kit/Field.js';
import type { Failure } from '../../kit/failure.js';
import { Loaded } from '../../kit/Loading.js';
import { RoleNotice } from '../../kit/RoleNotice.js';
import { request, useAction, useLoad } from '../../kit/request.js';
import { LogoPanel } from './LogoPanel.js';

/**
 * The merchant's settings: owners edit, everyone else reads. Settlement addresses get one row per chain this server
 * is configured for (the page's config block), plus any address the merchant already has on another chain; a server
 * with no chains configured offers an "add a chain" row taking a CAIP-2 id. Each refusal is shown beside the field the
 * server's `param` names (`settlementAddresses.eip155:8453`).
 */
export function Settings(props: { chains: DashboardChain[] }) {
  const { api, role } = useDashboard();
  const [load, reload] = useLoad(() => request(api.GET('/v1/dashboard/settings')), []);
  const { refreshSession } = useShell();
  // The header shows the merchant's name and logo from the session (§26.27): read it again when either changes.
  const reloadWithHeader = () => {
    reload();
    void refreshSession();
  };
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title" tabIndex={-1}>
        Settings
      </h1>
      {role !== 'owner' && <RoleNotice role={role} needs="Only owners can change the settings; you can read them." />}
      <Loaded load={load}>
        {(settings) => (
          <>
            <SettlementModePanel mode={settings.settlementMode} editable={role === 'owner'} onSaved={reload} />
            <LogoPanel settings={settings} editable={role === 'owner'} onChanged={reloadWithHeader} />
            <SettingsForm
              settings={settings}
              chains={props.chains}
              editable={role === 'owner'}
              onSaved={reloadWithHeader}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}

function SettingsForm(props: {
  settings: MerchantSettings;
  chains: DashboardChain[];
  editable: boolean;
  onSaved(): void;
}) {
  const { api } = useDashboard();
  const { settings } = props;
  const [name, setName] = useState(settings.name);
  const [addresses, setAddresses] = useState<Record<string, string>>({ ...settings.settlementAddresses });
  const [collectData, setCollectData] = useState(settings.collectData);
  const [requireTwoFactor, setRequireTwoFactor] = useState(settings.requireTwoFactor);
  const [newChain, setNewChain] = useState('');
  const [extraChains, setExtraChains] = useState<string[]>([]);
  const [saved, setSaved] = useState(false);

  const configured = new Set(props.chains.map((c) => c.caip2));
  const rows: { caip2: string; label: string }[] = [
    ...props.chains.map((c) => ({ caip2: c.caip2, label: `${c.name} (${c.mode})` })),
    ...Object.keys(settings.settlementAddresses)
      .concat(extraChains)
      .filter((caip2, i, all) => !configured.has(caip2) && all.indexOf(caip2) === i)
      .map((caip2) => ({ caip2, label: caip2 })),
  ];
  const fields = ['name', 'collectData', 'requireTwoFactor', ...rows.map((r) => `settlementAddresses.${r.caip2}`)];

  const save = useAction(async () => {
    setSaved(false);
    const settlementAddresses = Object.fromEntries(
      Object.entries(addresses)
        .map(([caip2, address]) => [caip2, address.trim()] as const)
        .filter(([, address]) => address !== ''),
    );
    await request(
      api.PATCH('/v1/dashboard/settings', {
        body: {
          name: name.trim(),
          settlementAddresses,
          collectData,
          requireTwoFactor,
        },
      }),
    );
    setSaved(true);
    props.onSaved();
  });
  const { failure, busy } = save;
  const submit = (event: Event) => {
    event.preventDefault();
    if (props.editable) void save.run();
  };

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label="Merchant settings">
      <fieldset disabled={!props.editable}>
        <FormError failure={failure} fields={fields} />
        <div class="panel">
          <h2>Business</h2>
          <Field
            label="Name"
            name="name"
            hint="Shown to buyers on the checkout."
            required
            value={name}
            failure={failure}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <div class="panel">
          <h2>Settlement addresses</h2>
          <p class="muted">Where each chain's payments are paid out. A chain without an address is not offered.</p>
          {rows.length === 0 && <p class="muted">This server has no chains configured.</p>}
          {rows.map((row) => (
            <div class="address-row" key={row.caip2}>
              <span class="chain-name">{row.label}</span>
              <Field
                label={`Address on ${row.label}`}
                name={`settlementAddresses.${row.caip2}`}
                class="mono"
                spellcheck={false}
                autoComplete="off"
                value={addresses[row.caip2] ?? ''}
                failure={failure}
                onInput={(e) => {
                  const value = e.currentTarget.value;
                  setAddresses((current) => ({ ...current, [row.caip2]: value }));
                }}
              />
            </div>
          ))}
          {props.chains.length === 0 && props.editable && (
            <div class="actions">
              <div class="field">
                <label for="add-chain">Add a chain (CAIP-2 id)</label>
                <input
                  id="add-chain"
                  class="mono"
                  placeholder="eip155:8453"
                  value={newChain}
                  onInput={(e) => setNewChain(e.currentTarget.value)}
                />
              </div>
              <button
                type="button"
                class="button secondary"
                disabled={!/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/.test(newChain.trim())}
                onClick={() => {
                  setExtraChains((c) => [...c, newChain.trim()]);
                  setNewChain('');
                }}
              >
                Add the chain
              </button>
            </div>
          )}
        </div>
        <div class="panel">
          <h2>Checkout and team</h2>
          <CheckField
            label="Collect buyer data"
            hint="Ask buyers for the travel-rule details before they pay."
            name="collectData"
            checked={collectData}
            failure={failure}
            onChange={setCollectData}
          />
          <CheckField
            label="Require two-factor authentication"
            hint="Team members without it can sign in but see nothing of this merchant until they enrol."
            name="requireTwoFactor"
            checked={requireTwoFactor}
            failure={failure}
            onChange={setRequireTwoFactor}
          />
        </div>
        {props.editable && (
          <div class="actions">
            <button type="submit" class="button" disabled={busy}>
              {busy ? 'Saving…' : 'Save settings'}
            </button>
            <span role="status" class="copy-status">
              {saved ? 'Saved' : ''}
            </span>
          </div>
        )}
      </fieldset>
    </form>
  );
}

function CheckField(props: {
  label: string;
  hint: string;
  name: string;
  checked: boolean;
  failure: Failure | null;
  onChange(value: boolean): void;
}) {
  const error = props.failure?.param === props.name ? props.failure.message : null;
  const id = `check-${props.name}`;
  return (
    <div class="check">
      <input
        id={id}
        type="checkbox"
        name={props.name}
        checked={props.checked}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
        aria-invalid={error ? true : undefined}
        onChange={(e) => props.onChange(e.currentTarget.checked)}
      />
      <div>
        <label for={id} class="label">
          {props.label}
        </label>
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
        {error && (
          <p class="field-error" id={`${id}-error`}>
            {error}
          </p>
        )}
      </div>
    </div>
  );
}

type SettlementMode = MerchantSettings['settlementMode'];

const MODES: { value: SettlementMode; label: string; explanation: string }[] = [
  {
    value: 'direct',
    label: 'Direct',
    explanation:
      'Buyers pay your own settlement address: the money reaches you at once and never passes through the operator. ' +
      'The operator’s fee accrues to a fee balance (Balances & payouts) that the operator invoices you for.',
  },
  {
    value: 'collected',
    label: 'Collected',
    explanation:
      'Buyers pay a deposit address of the operator’s, made for each payment, so any wallet or exchange can pay by a ' +
      'plain transfer. The operator pays you out on a schedule, net of the fee, to your settlement address.',
  },
];

/**
 * The settlement mode, changed on its own with a confirmation (it changes where buyers' money goes), never as a side
 * effect of saving the other settings. Owners only; others see it read-only like the rest of the screen.
 */
function SettlementModePanel(props: { mode: SettlementMode; editable: boolean; onSaved(): void }) {
  const { api } = useDashboard();
  const [chosen, setChosen] = useState<SettlementMode>(props.mode);
  const [confirming, setConfirming] = useState(false);
  const [changed, setChanged] = useState(false);
  const target = MODES.find((m) => m.value === chosen)!;
  return (
    <div class="panel" role="region" aria-labelledby="settlement-mode-title">
      <h2 id="settlement-mode-title">Settlement mode</h2>
      <fieldset disabled={!props.editable} class="mode-choice">
        <legend class="visually-hidden">How you are paid</legend>
        {MODES.map((m) => (
          <div class="check" key={m.value}>
            <input
              id={`settlement-mode-${m.value}`}
              type="radio"
              name="settlementMode"
              value={m.value}
              checked={chosen === m.value}
              aria-describedby={`settlement-mode-${m.value}-hint`}
              onChange={() => {
                setChosen(m.value);
                setChanged(false);
              }}
            />
            <div>
              <label for={`settlement-mode-${m.value}`} class="label">
                {m.label}
                {props.mode === m.value ? ' (current)' : ''}
              </label>
              <p class="hint" id={`settlement-mode-${m.value}-hint`}>
                {m.explanation}
              </p>
            </div>
          </div>
        ))}
        <p class="hint">A change applies to payments created after it; earlier payments keep their mode.</p>
        {props.editable && (
          <div class="actions">
            <button type="button" class="button" disabled={chosen === props.mode} onClick={() => setConfirming(true)}>
              Change settlement mode
            </button>
            <span role="status" class="copy-status">
              {changed ? 'Settlement mode changed' : ''}
            </span>
          </div>
        )}
      </fieldset>
      {confirming && (
        <ConfirmDialog
          title={`Switch to ${target.label.toLowerCase()} settlement?`}
          confirmLabel={`Switch to ${target.label.toLowerCase()}`}
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            await request(api.PATCH('/v1/dashboard/settings', { body: { settlementMode: chosen } }));
            setConfirming(false);
            setChanged(true);
            props.onSaved();
          }}
        >
          <p>{target.explanation}</p>
          <p>New payments, in test and live mode, use it from now on; payments already created keep their mode.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
