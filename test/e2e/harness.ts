/**
 * End to end on EVM: one Paygate server started as `paygate start` starts it (`startServer`: background jobs and
 * sweepers, the real clock, the graceful shutdown) over the run's shared anvil, which is priced by a Chainlink ETH/USD
 * feed deployed on it. A merchant is paid on eip155:31337 and has a test-mode webhook endpoint on a real receiver, the
 * shop, built on the verifier's `EventProcessor`: it fulfils an order once, when its payment is first seen succeeded.
 * The merchant uses the merchant SDK, the buyer the wallet SDK with an EIP-1193 provider that signs with the buyer's
 * own private key (a viem wallet client with a local account), as a browser wallet does.
 *
 * The merchant is also paid on the run's local Solana chain (LiteSVM behind its JSON-RPC endpoint), at a fresh
 * owner of its own; a Solana buyer is a fresh `@solana/kit` key pair holding TUSD from the faucet and no SOL.
 */
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import {
  createSolanaRpc,
  generateKeyPairSigner,
  type Address as SolanaAddress,
  type KeyPairSigner,
  type Rpc,
  type SolanaRpcApi,
} from '@solana/kit';
import { fetchMaybeToken, findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import {
  createWalletClient,
  erc20Abi,
  getAddress,
  http,
  type Address,
  type Chain,
  type Hex,
  type PrivateKeyAccount,
  type Transport,
  type WalletClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startServer, type RunningServer } from '@paygate/server';
import { PaygateMerchant } from '@paygate/sdk-merchant';
import { PaygateWallet, type Eip1193Provider, type PaygateWalletOptions } from '@paygate/sdk-wallet';
import {
  EventProcessor,
  Webhook,
  WebhookVerificationError,
  type ProcessResult,
  type WebhookEvent,
} from '@paygate/webhook-verifier';
import { createKey } from '../../server/src/accounts/index.js';
import { fundAccount } from '../../server/src/chains/faucet.js';
import { allChains, type Chains } from '../../server/src/chains/index.js';
import type { LocalEvmChain } from '../../server/src/chains/local.js';
import type { LocalSolanaChain } from '@paygate/devchain';
import { createPricing } from '../../server/src/quotes/index.js';
import { sharedChains } from '../helpers/chain.js';
import { testConfig } from '../helpers/config.js';
import { createMerchantAccount, type MerchantAccount } from '../helpers/fixtures.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { deployFeed, type TestFeed } from '../quotes/feeds.js';
import { eventually as waitUntil, WAIT_MS } from '../helpers/wait.js';

export const LOCAL = 'eip155:31337';
/** How long a quote that involves a rate (here: ether, priced by the feed) stays valid. */
export const QUOTE_TTL_S = 3;
/** The feed's first answer, 8 decimals: 3000 USD per ETH. */
export const ETH_USD = 3000_0000_0000n;
/** Every event a test payment that succeeds produces (test payments settle by themselves after success). */
export const SUCCEEDED_EVENTS = ['payment.created', 'payment.processing', 'payment.succeeded', 'payment.settled'];

/** The shared chains priced by an ETH/USD feed on the local chain instead of the static table. */
function withEthUsdFeed(chains: Chains, address: Address): Chains {
  return {
    ...chains,
    evm: chains.evm.map((c) => ({
      ...c,
      config: { ...c.config, priceFeeds: { 'ETH/USD': { address, heartbeatS: 3600 } } },
    })),
  };
}

/**
 * Brings the chain's clock to the wall clock. Every `evm_revert` winds anvil's clock back to the snapshot's block,
 * so after the run's earlier suites the chain lags real time by however long they kept snapshots open; with a real
 * clock on the server, deadlines and "mined before the option was issued" would then disagree with the chain.
 * Moving the chain forward is what time does to a real chain; a chain ahead of the wall clock cannot be moved back.
 */
export async function alignChainClock(local: LocalEvmChain): Promise<void> {
  const latest = Number((await local.clients.public.getBlock({ blockTag: 'latest' })).timestamp);
  const wall = Math.ceil(Date.now() / 1000);
  if (latest < wall) {
    await local.test.setNextBlockTimestamp({ timestamp: BigInt(wall) });
    await local.test.mine({ blocks: 1 });
  } else {
    assert.ok(latest - wall <= 2, `the chain's clock is ${latest - wall} s ahead of the wall clock`);
  }
}

/** Polls `check` until it answers true, or fails with `what` after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = WAIT_MS) {
  await waitUntil(what, check, { timeoutMs });
}

/** One delivery as the shop received it, with its answer and what the processor made of it. */
export interface ShopDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, as received. */
  body: string;
  answer: number;
  event: WebhookEvent | null;
  result: ProcessResult | null;
}

export interface Fulfilment {
  paymentId: string;
  referenceId: string;
  eventId: string;
  eventType: string;
  txId: string | null;
}

/** The merchant's webhook receiver: verifies each delivery, lets `EventProcessor` decide, fulfils orders once. */
export interface Shop {
  /** The endpoint URL to register. */
  url: string;
  deliveries: ShopDelivery[];
  fulfilments: Fulfilment[];
  /** Every `onStatus` call, in order. */
  statuses: { paymentId: string; status: string; version: number; eventType: string }[];
  /** The verifier starts once the endpoint's secret is known. */
  useSecret(secret: string): void;
  /** The deliveries of one payment that the shop answered. */
  deliveriesOf(paymentId: string): ShopDelivery[];
  fulfilmentsOf(paymentId: string): Fulfilment[];
  close(): Promise<void>;
}

/**
 * `now` is the merchant's clock in ms (default the wall clock). A harness that drives a business clock passes it: the
 * server signs `webhook-timestamp` with that clock, which starts at the chain's time and lags or leads the wall clock
 * by however the run's earlier suites left the chain, so a wall-clock shop would refuse fresh deliveries as too old.
 */
export async function startShop(options: { now?: () => number } = {}): Promise<Shop> {
  const receiver: Receiver = await startReceiver();
  let webhook: Webhook | null = null;
  const deliveries: ShopDelivery[] = [];
  const fulfilments: Fulfilment[] = [];
  const statuses: Shop['statuses'] = [];
  const processor = new EventProcessor({
    // Test-mode payments (live: false) are what this shop is paid with.
    requireLive: false,
    onStatus: (status, event) => {
      statuses.push({
        paymentId: event.data.payment_id,
        status,
        version: event.data.payment_state_version,
        eventType: event.type,
      });
    },
    onSucceeded: (event) => {
      fulfilments.push({
        paymentId: event.data.payment_id,
        referenceId: event.data.reference_id,
        eventId: event.id,
        eventType: event.type,
        txId: event.data.success?.tx_id ?? null,
      });
    },
  });

  receiver.respond = (req, res, body) => {
    const delivery: ShopDelivery = {
      path: req.url ?? '',
      headers: req.headers,
      body,
      answer: 0,
      event: null,
      result: null,
    };
    const answer = (status: number, text = '') => {
      delivery.answer = status;
      deliveries.push(delivery);
      res.writeHead(status, text ? { 'Content-Type': 'application/json' } : {}).end(text);
    };
    void (async () => {
      if (!webhook) return answer(503, JSON.stringify({ code: 'not_ready' }));
      try {
        // The raw bytes: a re-serialised body would not verify.
        delivery.event = webhook.verify(body, req.headers);
      } catch (error) {
        if (error instanceof WebhookVerificationError) {
          return answer(400, JSON.stringify({ code: error.reason, message: error.message }));
        }
        return answer(500);
      }
      try {
        delivery.result = await processor.process(delivery.event);
        answer(204);
      } catch {
        answer(500);
      }
    })();
  };

  return {
    url: `${receiver.url}/webhooks/paygate`,
    deliveries,
    fulfilments,
    statuses,
    useSecret: (secret) => (webhook = new Webhook(secret, options.now ? { now: () => options.now!() / 1000 } : {})),
    deliveriesOf: (paymentId) => deliveries.filter((d) => d.event?.data.payment_id === paymentId),
    fulfilmentsOf: (paymentId) => fulfilments.filter((f) => f.paymentId === paymentId),
    close: () => receiver.close(),
  };
}

/** What a provider was asked, in order; tests may push their own markers to see what came first. */
export type CallLog = string[];

export interface Buyer {
  account: PrivateKeyAccount;
  address: Address;
  caip10: string;
  /** An EIP-1193 provider over a viem wallet client that signs with the buyer's key, recording each method. */
  provider: Eip1193Provider;
  /** Methods the provider was asked, in order, with the test's own markers between them. */
  log: CallLog;
}

/** A buyer on the local Solana chain: a `@solana/kit` key pair, which signs without sending, as a wallet does. */
export interface SolanaBuyer {
  signer: KeyPairSigner;
  address: SolanaAddress;
  caip10: string;
}

/** One webhook delivery, as the dashboard API lists it. */
export interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  paymentId: string;
  trigger: string;
  status: string;
}

type LocalWallet = WalletClient<Transport, Chain, PrivateKeyAccount>;

/**
 * What a browser wallet does with the gateway's calls: `eth_signTypedData_v4` and `eth_sendTransaction` are signed
 * with the buyer's own key (the transaction is broadcast by the wallet), the account and chain are the wallet's, and
 * every other method goes to the node. A request for another account is refused as a wallet would (4100).
 */
function localKeyProvider(wallet: LocalWallet, log: CallLog): Eip1193Provider {
  const address = wallet.account.address;
  const mine = (from: unknown) => {
    if (typeof from !== 'string' || getAddress(from) !== address) {
      throw Object.assign(new Error(`The wallet does not hold ${String(from)}.`), { code: 4100 });
    }
  };
  return {
    async request({ method, params }) {
      log.push(method);
      const args = (params ?? []) as unknown[];
      switch (method) {
        case 'eth_accounts':
        case 'eth_requestAccounts':
          return [address];
        case 'eth_signTypedData_v4': {
          mine(args[0]);
          const typed = JSON.parse(args[1] as string) as {
            domain: Record<string, unknown>;
            types: Record<string, { name: string; type: string }[]>;
            primaryType: string;
            message: Record<string, unknown>;
          };
          const { EIP712Domain: _domain, ...types } = typed.types;
          return wallet.signTypedData({
            domain: typed.domain,
            types,
            primaryType: typed.primaryType,
            message: typed.message,
          });
        }
        case 'eth_sendTransaction': {
          const tx = args[0] as { from?: string; to: Hex; data?: Hex; value?: Hex };
          if (tx.from !== undefined) mine(tx.from);
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
}

export interface E2e {
  server: RunningServer;
  /** Where the API is reached. */
  url: string;
  local: LocalEvmChain;
  chains: Chains;
  feed: TestFeed;
  /** CAIP-19 (without `caip19/`) of TUSD and of ether on the local chain. */
  tusd: string;
  ether: string;
  /** A fresh address the merchant is paid at, so its balances start at nothing. */
  settlement: Address;
  account: MerchantAccount;
  merchant: PaygateMerchant;
  shop: Shop;
  /** The wallet app's public credentials (an app id of test mode, named in the server as the buyer's wallet). */
  appId: string;
  walletName: string;
  /** The wallet SDK as a wallet app runs it, against `baseUrl` (the server unless given, e.g. a proxy). */
  wallet(options?: Partial<PaygateWalletOptions>): PaygateWallet;
  /** A dashboard API request with the merchant's test key. */
  dashboard(method: string, path: string, body?: unknown): Promise<Response>;
  /** A fresh buyer with its own key, funded by the faucet (TUSD minor units; wei). */
  buyer(funds: { tusd?: bigint; wei?: bigint }): Promise<Buyer>;
  tusdBalance(address: Address): Promise<bigint>;
  /** The run's local Solana chain, and a kit RPC client of its endpoint. */
  solana: LocalSolanaChain;
  solanaRpc: Rpc<SolanaRpcApi>;
  /** CAIP-19 (without `caip19/`) of TUSD and of SOL on the local Solana chain. */
  solanaTusd: string;
  sol: string;
  /** A fresh owner the merchant is paid at on the local Solana chain (its TUSD account does not exist yet). */
  solanaSettlement: SolanaAddress;
  /** A fresh Solana buyer funded by the faucet (TUSD minor units; lamports, none unless asked). */
  solanaBuyer(funds: { tusd?: bigint; lamports?: bigint }): Promise<SolanaBuyer>;
  /** The owner's TUSD on the local Solana chain (its associated token account; 0 when there is none). */
  solanaTusdBalance(owner: SolanaAddress): Promise<bigint>;
  lamports(owner: SolanaAddress): Promise<bigint>;
  /** The payment's deliveries, as the dashboard API lists them (of one event type, when given). */
  deliveriesOf(paymentId: string, eventType?: string): Promise<Delivery[]>;
  /** Waits until the shop has answered every event of a succeeded payment, then answers its deliveries there. */
  allEventsReceived(paymentId: string): Promise<ShopDelivery[]>;
  /** The outbox events of a payment, oldest first. */
  eventTypes(paymentId: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function startE2e(): Promise<E2e> {
  const shared = await sharedChains();
  const local = shared.local!.evm;
  const solana = shared.local!.solana;
  await alignChainClock(local);
  const block = await local.clients.public.getBlock({ blockTag: 'latest' });
  // The feed stays on the chain for the whole file: the file reverts to this snapshot when it closes.
  const fileSnapshot = await local.test.snapshot();
  let server: RunningServer | null = null;
  let shop: Shop | null = null;
  try {
    const feed = await deployFeed(local, 8, 'ETH / USD');
    await feed.setAnswer(ETH_USD, block.timestamp);
    const chains = withEthUsdFeed(shared, feed.address);
    const config = testConfig({
      PAYGATE_WEBHOOK_ALLOW_LOOPBACK: 'true',
      PAYGATE_QUOTE_TTL_S: String(QUOTE_TTL_S),
    });
    // The runtime's own pricing (createCheckout's), but reading the feed again after 250 ms instead of 5 s: the
    // default cache is longer than this short quote life, and a quote is counted from when its price was read.
    const pricing = createPricing({
      chains: allChains(chains),
      config,
      priceCacheMs: 250,
    });
    server = await startServer(config, {
      handleSignals: false,
      runtime: { chains, jobPollIntervalMs: 50, checkout: { pricing } },
    });
    const runtime = server.runtime;
    shop = await startShop();
    const settlement = privateKeyToAccount(generatePrivateKey()).address;
    const solanaSettlement = (await generateKeyPairSigner()).address;
    const account = await createMerchantAccount(runtime, {
      settlementAddresses: { [LOCAL]: settlement, [solana.caip2]: solanaSettlement },
    });
    const walletName = 'E2E wallet';
    const appId = (await createKey(runtime, { kind: 'app', mode: 'test', label: walletName })).secret;
    const url = server.url;

    const dashboard = (method: string, path: string, body?: unknown) =>
      fetch(`${url}${path}`, {
        method,
        headers: {
          'Api-Key': account.testKey,
          'Merchant-Id': account.merchantId,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const created = await dashboard('POST', '/v1/dashboard/webhook-endpoint', { url: shop.url });
    assert.equal(created.status, 201, await created.clone().text());
    shop.useSecret(((await created.json()) as { secret: string }).secret);

    const tusd = `${LOCAL}/erc20:${local.testUsd}`;
    const solanaRpc = createSolanaRpc(solana.rpcUrl);
    const running = server;
    const receiving = shop;
    const deliveriesOf = async (paymentId: string, eventType?: string): Promise<Delivery[]> => {
      const query = new URLSearchParams({ limit: '100', ...(eventType ? { eventType } : {}) });
      const res = await dashboard('GET', `/v1/dashboard/webhook-deliveries?${query}`);
      assert.equal(res.status, 200);
      return ((await res.json()) as { data: Delivery[] }).data.filter((d) => d.paymentId === paymentId);
    };
    return {
      server,
      url,
      local,
      chains,
      feed,
      tusd,
      ether: `${LOCAL}/slip44:60`,
      settlement,
      account,
      merchant: new PaygateMerchant({ baseUrl: url, apiKey: account.testKey, merchantId: account.merchantId }),
      shop,
      appId,
      walletName,
      wallet: (options = {}) =>
        new PaygateWallet({ baseUrl: url, appId, clientId: 'e2e-installation-1', ...options } as PaygateWalletOptions),
      dashboard,
      async buyer(funds) {
        const key = generatePrivateKey();
        const buyerAccount = privateKeyToAccount(key);
        const caip10 = `${LOCAL}:${buyerAccount.address}`;
        // Funding TUSD also tops the account up with 1 ETH for gas (the faucet's rule).
        if (funds.tusd)
          await fundAccount(shared.local!, { account: caip10, asset: tusd, amount: funds.tusd.toString() });
        if (funds.wei)
          await fundAccount(shared.local!, { account: caip10, asset: 'native', amount: funds.wei.toString() });
        const wallet = createWalletClient({
          account: buyerAccount,
          chain: local.clients.chain,
          transport: http(local.config.rpcUrl, { retryCount: 0 }),
        });
        const log: CallLog = [];
        return {
          account: buyerAccount,
          address: buyerAccount.address,
          caip10,
          provider: localKeyProvider(wallet, log),
          log,
        };
      },
      tusdBalance: (address) =>
        local.clients.public.readContract({
          address: local.testUsd,
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [address],
        }),
      solana,
      solanaRpc,
      solanaTusd: `${solana.caip2}/token:${solana.mints.tusd.address}`,
      sol: `${solana.caip2}/slip44:501`,
      solanaSettlement,
      async solanaBuyer(funds) {
        const signer = await generateKeyPairSigner();
        if (funds.tusd) await solana.faucet.mintTokens(signer.address, solana.mints.tusd.address, funds.tusd);
        if (funds.lamports) await solana.faucet.airdropSol(signer.address, funds.lamports);
        return { signer, address: signer.address, caip10: `${solana.caip2}:${signer.address}` };
      },
      async solanaTusdBalance(owner) {
        const [ata] = await findAssociatedTokenPda({
          owner,
          mint: solana.mints.tusd.address,
          tokenProgram: TOKEN_PROGRAM_ADDRESS,
        });
        const token = await fetchMaybeToken(solanaRpc, ata, { commitment: solana.commitment });
        return token.exists ? token.data.amount : 0n;
      },
      lamports: async (owner) => (await solanaRpc.getBalance(owner, { commitment: solana.commitment }).send()).value,
      deliveriesOf,
      async allEventsReceived(paymentId) {
        await eventually(
          () => SUCCEEDED_EVENTS.every((type) => receiving.deliveriesOf(paymentId).some((d) => d.event?.type === type)),
          `the events of ${paymentId} at the shop`,
        );
        return receiving.deliveriesOf(paymentId);
      },
      async eventTypes(paymentId) {
        const rows = (await runtime.db.knex('events').where({ payment_id: paymentId }).orderBy('state_version')) as {
          type: string;
        }[];
        return rows.map((r) => r.type);
      },
      // The Solana chain has no snapshots: its tests use fresh buyers and the file's own fresh settlement owner.
      async close() {
        await running.close();
        await receiving.close();
        await local.test.revert({ id: fileSnapshot });
      },
    };
  } catch (error) {
    await server?.close();
    await shop?.close();
    await local.test.revert({ id: fileSnapshot });
    throw error;
  }
}
