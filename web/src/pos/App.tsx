import { useEffect, useMemo, useState } from 'preact/hooks';
import { createPosClient, type PosClient, type SaleRequest } from './api.js';
import { forgetKey, readKey, storeKey } from './keyStore.js';
import { transition, type PosEvent, type PosState } from './posMachine.js';
import { useOnline } from './useOnline.js';
import { MerchantLogo } from '../kit/MerchantLogo.js';
import { Done } from './views/Done.js';
import { KeyEntry } from './views/KeyEntry.js';
import { Paying } from './views/Paying.js';
import { Register } from './views/Register.js';

/** How often a sale on screen is read again; the buyer is standing at the counter, so often. */
export const POLL_MS = 2000;

export function App(props: { posId: string }) {
  const { posId } = props;
  const [key, setKey] = useState(() => readKey(posId));
  const [state, setState] = useState<PosState>(() => (key ? { name: 'loading' } : { name: 'key', refused: false }));
  const [online, setOnline] = useOnline();
  const send = (event: PosEvent) => setState((s) => transition(s, event));
  const client = useMemo<PosClient | null>(() => (key ? createPosClient(key) : null), [key]);

  const refused = () => {
    forgetKey(posId);
    setKey(null);
    send({ type: 'keyRefused' });
  };

  // The terminal, once per key: this also checks the key.
  useEffect(() => {
    if (!client) return;
    let current = true;
    const load = async () => {
      try {
        const { data, response } = await client.GET('/v1/gateway/pos/{posId}', { params: { path: { posId } } });
        if (!current) return;
        setOnline(true);
        if (response.status === 401) return refused();
        if (data) send({ type: 'terminalLoaded', terminal: data });
        else setTimeout(() => current && void load(), POLL_MS);
      } catch {
        if (!current) return;
        setOnline(false);
        setTimeout(() => current && void load(), POLL_MS);
      }
    };
    void load();
    return () => {
      current = false;
    };
  }, [client]);

  // Follows the sale on screen. No answer leaves it as it is (offline); only a fresh answer can end it.
  const saleId = state.name === 'paying' ? state.sale.paymentId : null;
  useEffect(() => {
    if (!client || !saleId) return;
    let current = true;
    const timer = setInterval(async () => {
      try {
        const { data, response } = await client.GET('/v1/gateway/pos/{posId}/payments/{id}', {
          params: { path: { posId, id: saleId } },
        });
        if (!current) return;
        setOnline(true);
        if (response.status === 401) return refused();
        if (data) send({ type: 'saleRead', sale: data });
      } catch {
        if (current) setOnline(false);
      }
    }, POLL_MS);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, [client, saleId]);

  const charge = async (sale: SaleRequest) => {
    if (!client) return;
    send({ type: 'charge' });
    try {
      const { data, error, response } = await client.POST('/v1/gateway/pos/{posId}/payments', {
        params: { path: { posId } },
        body: sale,
      });
      setOnline(true);
      if (response.status === 401) return refused();
      if (data) send({ type: 'saleCreated', sale: data });
      else send({ type: 'chargeFailed', message: (error as { message?: string } | undefined)?.message ?? 'Refused.' });
    } catch {
      setOnline(false);
      send({
        type: 'chargeFailed',
        message: 'Offline: the payment was not created. Try again when the connection is back.',
      });
    }
  };

  const terminal = 'terminal' in state ? state.terminal : null;
  return (
    <div class="pos">
      {terminal?.mode === 'test' && <div class="test-strip">Test mode: payments are not real</div>}
      <header class="topbar">
        <span class="brand">
          {terminal && <MerchantLogo url={terminal.merchantLogoUrl} name={terminal.merchantName ?? ''} />}
          {terminal ? `${terminal.merchantName ?? ''} · ${terminal.name}` : 'Point of sale'}
        </span>
        {key && (
          <button
            type="button"
            class="link-button"
            onClick={() => {
              forgetKey(posId);
              setKey(null);
              setState({ name: 'key', refused: false });
            }}
          >
            Forget key
          </button>
        )}
      </header>
      {!online && (
        <p class="pos-offline" role="alert">
          Offline. Sales wait until the connection is back; no payment is shown as paid until the server says so.
        </p>
      )}
      {state.name === 'key' && (
        <KeyEntry
          refused={state.refused}
          onKey={(k) => {
            storeKey(posId, k);
            setKey(k);
            send({ type: 'keyEntered' });
          }}
        />
      )}
      {state.name === 'loading' && (
        <main class="pos-loading">
          <h1>Point of sale</h1>
          <p role="status">Loading…</p>
        </main>
      )}
      {(state.name === 'ring' || state.name === 'charging') && (
        <Register
          terminal={state.terminal}
          busy={state.name === 'charging'}
          failure={state.name === 'ring' ? state.failure : null}
          onCharge={(s) => void charge(s)}
        />
      )}
      {state.name === 'paying' && (
        <Paying sale={state.sale} online={online} onCancel={() => send({ type: 'newSale' })} />
      )}
      {state.name === 'done' && (
        <Done sale={state.sale} outcome={state.outcome} onNext={() => send({ type: 'newSale' })} />
      )}
    </div>
  );
}
