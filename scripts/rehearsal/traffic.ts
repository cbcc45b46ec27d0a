/**
 * Steady traffic through the proxy for the whole rehearsal, from the clients a merchant and a wallet use:
 * - merchant loops (the merchant SDK): create a payment, read its status, load its hosted checkout page;
 * - a buyer loop (the wallet SDK): pays one payment after another, in turn gasless (EIP-3009 TUSD, one signature),
 *   direct (ether, the buyer's own transaction) and Solana (TUSD, co-signed by the service's fee payer);
 * - a buyer in Chromium (browser.ts) paying the hosted checkout through the proxy with the page's own flow;
 * and the deliveries those payments cause. Every operation is counted in the current window (a step opens one):
 * requests, failures (an operation that did not end as it must), retries (HTTP attempts the SDKs repeated after a
 * refused connection or a 502/503/504, inside operations that then succeeded) and the longest operation.
 */
import { generateKeyPairSigner } from '@solana/kit';
import { createWalletClient, getAddress, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { anvil } from 'viem/chains';
import { eventually } from '../../test/helpers/wait.js';
import { PaygateMerchant } from '@paygate/sdk-merchant';
import { PaygateWallet, type Eip1193Provider, type PayableOption } from '@paygate/sdk-wallet';

export interface Window {
  requests: number;
  failures: number;
  retries: number;
  longestMs: number;
  errors: string[];
  /** Operations answered 503 with a code, counted apart (a PostgreSQL outage's expected answer). */
  refused503: number;
}

export interface TrafficOptions {
  baseUrl: string;
  merchantId: string;
  merchantKey: string;
  appId: string;
  faucetUrl: string;
  evmRpcUrl: string;
  evmTusd: string;
  solanaCaip2: string;
  solanaTusd: string;
  merchantLoops: number;
  /** How the operations of a window that may be refused (a database outage) are judged. */
  tolerate503?: () => boolean;
  /** A buyer paying the hosted checkout in a browser (browser.ts), in a loop of its own beside the SDK buyer. */
  pagePayer?: PagePayer;
}

export interface PagePayer {
  payOnce(traffic: Traffic, tag: string): Promise<void>;
}

/** `checkout`: paid by the hosted checkout page in Chromium (browser.ts). */
export type PayKind = 'gasless' | 'direct' | 'solana' | 'checkout';

const newWindow = (): Window => ({ requests: 0, failures: 0, retries: 0, longestMs: 0, errors: [], refused503: 0 });

/** What a browser wallet does: signs typed data and sends transactions with the buyer's key; the rest goes to the node. */
function keyProvider(rpcUrl: string): { provider: Eip1193Provider; address: Hex } {
  const account = privateKeyToAccount(generatePrivateKey());
  const wallet = createWalletClient({ account, chain: anvil, transport: http(rpcUrl, { retryCount: 0 }) });
  const provider: Eip1193Provider = {
    async request({ method, params }) {
      const args = (params ?? []) as unknown[];
      switch (method) {
        case 'eth_accounts':
        case 'eth_requestAccounts':
          return [account.address];
        case 'eth_signTypedData_v4': {
          const typed = JSON.parse(args[1] as string) as {
            domain: Record<string, unknown>;
            types: Record<string, { name: string; type: string }[]>;
            primaryType: string;
            message: Record<string, unknown>;
          };
          const { EIP712Domain: _d, ...types } = typed.types;
          return wallet.signTypedData({
            domain: typed.domain,
            types,
            primaryType: typed.primaryType,
            message: typed.message,
          });
        }
        case 'eth_sendTransaction': {
          const tx = args[0] as { from?: string; to: Hex; data?: Hex; value?: Hex };
          if (tx.from !== undefined && getAddress(tx.from) !== account.address) throw new Error('not this wallet');
          return wallet.sendTransaction({
            to: tx.to,
            data: tx.data,
            value: tx.value === undefined ? 0n : BigInt(tx.value),
          });
        }
        default:
          return wallet.request({ method, params } as never);
      }
    },
  };
  return { provider, address: account.address };
}

export class Traffic {
  window: Window = newWindow();
  /** Payments the buyer loop paid: each must end succeeded, and its events reach the receiver. */
  readonly paid: { paymentId: string; kind: PayKind; status: string }[] = [];
  readonly created: string[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private kinds = ['gasless', 'direct', 'solana'] as const;

  constructor(private readonly o: TrafficOptions) {}

  /** Opens a new window and answers the one that closes. */
  next(): Window {
    const closed = this.window;
    this.window = newWindow();
    return closed;
  }

  /** Waits until `ops` more operations have ended in the current window: traffic demonstrably flows. */
  async settle(ops: number): Promise<void> {
    const w = this.window;
    const target = w.requests + ops;
    await eventually(`${ops} more operations`, () => w.requests - w.failures >= target || this.window !== w, {
      timeoutMs: 120_000,
      intervalMs: 50,
    });
  }

  /** A fetch that counts the attempts an operation's client repeated. */
  private counting(local: { retries: number }): typeof fetch {
    return async (input, init) => {
      try {
        const res = await fetch(input, init);
        if (res.status === 502 || res.status === 503 || res.status === 504) local.retries++;
        return res;
      } catch (err) {
        local.retries++;
        throw err;
      }
    };
  }

  /** Runs one operation, counting it in the current window. */
  async op<T>(what: string, work: (f: typeof fetch) => Promise<T>): Promise<T | undefined> {
    const w = this.window;
    const local = { retries: 0 };
    const started = Date.now();
    w.requests++;
    try {
      const value = await work(this.counting(local));
      w.retries += local.retries;
      return value;
    } catch (err) {
      const status = (err as { status?: number }).status;
      const code = (err as { code?: string }).code;
      if (status === 503 && code && this.o.tolerate503?.()) w.refused503++;
      else {
        w.failures++;
        if (w.errors.length < 20) w.errors.push(`${what}: ${status ?? ''} ${code ?? ''} ${String(err).slice(0, 300)}`);
      }
      return undefined;
    } finally {
      w.longestMs = Math.max(w.longestMs, Date.now() - started);
    }
  }

  merchant(f: typeof fetch): PaygateMerchant {
    return new PaygateMerchant({
      baseUrl: this.o.baseUrl,
      apiKey: this.o.merchantKey,
      merchantId: this.o.merchantId,
      fetch: f,
    });
  }

  private async merchantLoop(n: number): Promise<void> {
    for (let i = 0; this.running; i++) {
      const created = await this.op('create', (f) =>
        this.merchant(f).createPayment({ amount: { unit: 'iso4217/USD', value: '100' }, referenceId: `m${n}-${i}` }),
      );
      if (!created) continue;
      this.created.push(created.paymentId);
      await this.op('status', (f) => this.merchant(f).getStatus(created.paymentId));
      // The hosted checkout page, as a buyer's browser first loads it through the proxy.
      await this.op('checkout page', async (f) => {
        const res = await f(created.gatewayUrl);
        const html = await res.text();
        if (res.status !== 200 || !html.includes('/checkout/assets/')) {
          // A 503 while the database is away is the page's refusal (counted apart in step 3), not a failure.
          throw Object.assign(new Error(`checkout page ${res.status}`), { status: res.status, code: 'page' });
        }
      });
    }
  }

  async fund(body: Record<string, string>): Promise<void> {
    const res = await fetch(`${this.o.faucetUrl}/fund`, { method: 'POST', body: JSON.stringify(body) });
    if (res.status !== 204) throw new Error(`faucet: ${res.status} ${await res.text()}`);
  }

  /** One payment of `kind`, created by the merchant and paid by a fresh buyer with the wallet SDK. */
  async payOnce(kind: Exclude<PayKind, 'checkout'>, tag: string): Promise<void> {
    let paymentId = '';
    const final = await this.op(`pay ${kind}`, async (f) => {
      const created = await this.merchant(f).createPayment({
        amount: { unit: 'iso4217/USD', value: '125' },
        referenceId: `pay-${tag}`,
      });
      paymentId = created.paymentId;
      const wallet = new PaygateWallet({
        baseUrl: this.o.baseUrl,
        appId: this.o.appId,
        clientId: 'rehearsal',
        fetch: f,
      });
      let account: string;
      let unit: string;
      let signers: Parameters<PaygateWallet['pay']>[1];
      if (kind === 'solana') {
        const signer = await generateKeyPairSigner();
        await this.fund({ chain: 'solana', address: signer.address, tusd: '10000000' });
        account = `${this.o.solanaCaip2}:${signer.address}`;
        unit = `caip19/${this.o.solanaTusd}`;
        signers = { solana: signer };
      } else {
        const buyer = keyProvider(this.o.evmRpcUrl);
        account = `eip155:31337:${buyer.address}`;
        if (kind === 'gasless') await this.fund({ chain: 'evm', address: buyer.address, tusd: '10000000' });
        else await this.fund({ chain: 'evm', address: buyer.address, native: '1000000000000000000' });
        unit = kind === 'gasless' ? `caip19/${this.o.evmTusd}` : 'caip19/eip155:31337/slip44:60';
        signers = { eip155: buyer.provider };
      }
      const { options } = await wallet.getOptions({ paymentId, accounts: [account] });
      const option = options.find((o) => o.amount.unit === unit) as PayableOption | undefined;
      if (!option) throw new Error(`no ${unit} option: ${options.map((o) => o.amount.unit).join(', ')}`);
      return wallet.pay(option, signers);
    });
    this.paid.push({ paymentId, kind, status: final?.status ?? 'not paid' });
  }

  private async payLoop(): Promise<void> {
    for (let i = 0; this.running; i++) await this.payOnce(this.kinds[i % 3]!, `${i}`);
  }

  private async pageLoop(payer: PagePayer): Promise<void> {
    for (let i = 0; this.running; i++) await payer.payOnce(this, `${i}`);
  }

  start(): void {
    this.running = true;
    for (let n = 0; n < this.o.merchantLoops; n++) this.loops.push(this.merchantLoop(n));
    this.loops.push(this.payLoop());
    if (this.o.pagePayer) this.loops.push(this.pageLoop(this.o.pagePayer));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.loops = [];
  }
}
