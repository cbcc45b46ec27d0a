/**
 * `npm run bench -- gateway`: latency (p50, p99) of the checkout's calls, beside a bare Express JSON route measured
 * with the same client in the same run. Target (issue 6): options p50 < 20 ms.
 *
 * In-process, like the webhooks benchmark: a real HTTP server over a real runtime (SQLite file, then a throwaway
 * PostgreSQL), the local anvil chain with TUSD, buyers funded by the faucet. The client (fetch) shares the event
 * loop with the servers, for the bare route and the gateway alike.
 *
 * One section per chain family: `evmSection` (anvil) and `solanaSection` (issue 7: the local LiteSVM chain, options,
 * fetch and confirm of a TUSD transfer the service co-signs and broadcasts).
 *
 * Env (defaults keep the run near 90 s: EVM ≈ 45 s, Solana ≈ 45 s): BENCH_OPTIONS (sequential options calls per row, 1000),
 * BENCH_CONCURRENCY (8) and BENCH_CONCURRENT (calls per concurrent row, 400), BENCH_CONFIRMS (gasless confirms per
 * database, 100), BENCH_DIRECT (direct-transfer confirms, 50; 0 skips), BENCH_SOLANA_OPTIONS (BENCH_OPTIONS),
 * BENCH_SOLANA_FETCHES (1000) and BENCH_SOLANA_CONFIRMS (BENCH_CONFIRMS) per database, BENCH_DATABASES (`sqlite,postgres`),
 * BENCH_SECTIONS (`evm,solana`), BENCH_WRITE=0 (print only, leave BENCHMARKS.md alone).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  type KeyPairSigner,
} from '@solana/kit';
import express from 'express';
import { pino } from 'pino';
import { createWalletClient, http, type Hex, type PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createApp, createRuntime, loadConfig, openDatabase, type Database, type Runtime } from '@paygate/server';
import { createKey } from '../../server/src/accounts/index.js';
import { fundAccount } from '../../server/src/chains/faucet.js';
import { startChains, type Chains } from '../../server/src/chains/index.js';
import type { components } from '../../server/src/generated/gateway.js';
import type { Observer } from '../../server/src/observability/observer.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { typedDataOf, withDirectTusd } from '../../test/gateway/checkout.js';
import { listen } from '../../test/helpers/http.js';
import { createMerchantAccount } from '../../test/helpers/fixtures.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../test/helpers/postgres.js';
import { machineLine, writeSection } from './_report.js';

type PaymentOption = components['schemas']['PaymentOption'];
type OptionsAnswer = components['schemas']['GetPaymentOptionsResponse'];

const OPTIONS = Number(process.env.BENCH_OPTIONS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 400);
const CONFIRMS = Number(process.env.BENCH_CONFIRMS ?? 100);
const DIRECT = Number(process.env.BENCH_DIRECT ?? 50);
const SOLANA_OPTIONS = Number(process.env.BENCH_SOLANA_OPTIONS ?? OPTIONS);
const SOLANA_FETCHES = Number(process.env.BENCH_SOLANA_FETCHES ?? 1000);
const SOLANA_CONFIRMS = Number(process.env.BENCH_SOLANA_CONFIRMS ?? CONFIRMS);
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,postgres').split(',').map((d) => d.trim());
const SECTIONS = (process.env.BENCH_SECTIONS ?? 'evm,solana').split(',').map((d) => d.trim());
const WRITE = process.env.BENCH_WRITE !== '0';
const WARMUP = 30;
const CONFIRM_WARMUP = 3;
const TARGET_OPTIONS_P50_MS = 20;

/** anvil account #1, where the bench merchant is paid (as in the tests). */
const SETTLEMENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

// ---------------------------------------------------------------------------------------------------------------
// Measuring

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** One POST through the shared client (fetch, keep-alive), body read to the end; throws unless `status`. */
async function post(url: string, headers: Record<string, string>, body: unknown, status = 200): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== status) throw new Error(`POST ${url}: ${res.status} ${text.slice(0, 500)}`);
  return text;
}

/** The bare route: the same framework and JSON body parsing, no work (as in the api benchmark). */
async function startBare(): Promise<{ url: string; call: () => Promise<unknown>; close: () => void }> {
  const app = express();
  app.use(express.json());
  app.post('/bare', (req, res) => res.json({ ok: true, echo: (req.body as { accounts?: unknown })?.accounts ?? null }));
  const server = await listen(app);
  const url = `${server.url}/bare`;
  const body = { accounts: [`eip155:31337:${SETTLEMENT}`] };
  return { url, call: () => post(url, {}, body), close: server.close };
}

/** Chain RPC calls the server made while a series ran, from the chains' observer (every call is observed). */
class RpcRecorder {
  private calls = 0;
  private ms = 0;
  private readonly byMethod = new Map<string, number>();
  private recording = false;
  readonly observer: Observer = {
    paymentTransition() {},
    webhookAttempt() {},
    webhookDelivered() {},
    jobRun() {},
    rpcCall: ({ method, seconds }) => {
      if (!this.recording) return;
      this.calls++;
      this.ms += seconds * 1000;
      this.byMethod.set(method, (this.byMethod.get(method) ?? 0) + 1);
    },
  };

  reset(): void {
    this.calls = 0;
    this.ms = 0;
    this.byMethod.clear();
  }

  /** Counts the calls made while `work` runs. */
  async record<T>(work: () => Promise<T>): Promise<T> {
    this.recording = true;
    try {
      return await work();
    } finally {
      this.recording = false;
    }
  }

  /** "n (method ×k, …), m ms" per request. */
  summary(requests: number): string {
    if (this.calls === 0) return 'none';
    const methods = [...this.byMethod].map(([method, calls]) => `${method} ×${fmt(calls / requests)}`).join(', ');
    return `${fmt(this.calls / requests)} (${methods}), ${fmt(this.ms / requests)} ms`;
  }
}

/** Integers as they are; others with one decimal, two below 1, three below 0.1 (a cache that reads the chain now and then). */
const fmt = (value: number) =>
  Number.isInteger(value) ? String(value) : value.toFixed(value < 0.1 ? 3 : value < 1 ? 2 : 1);

interface Row {
  what: string;
  n: number;
  samples: number[];
  /** The bare route's samples taken alongside (interleaved, or the same concurrency). */
  bare: number[];
  rps?: number;
  rpc?: string;
  target?: string;
}

function tableRow(r: Row): string {
  const p50 = percentile(r.samples, 50);
  const bare50 = percentile(r.bare, 50);
  const rps = r.rps === undefined ? '' : r.rps.toFixed(0);
  return `| ${r.what} | ${r.n} | ${p50.toFixed(1)} ms | ${percentile(r.samples, 99).toFixed(1)} ms | ${bare50.toFixed(2)} ms | ${(p50 / bare50).toFixed(1)}× | ${rps} | ${r.rpc ?? ''} | ${r.target ?? ''} |`;
}

/** n sequential calls of `work`, each after one bare call, so load changes on the machine hit both alike. */
async function interleaved(
  n: number,
  bare: () => Promise<unknown>,
  work: (i: number) => Promise<unknown>,
): Promise<{ samples: number[]; bare: number[] }> {
  const samples: number[] = [];
  const bareSamples: number[] = [];
  for (let i = 0; i < n; i++) {
    bareSamples.push(await timed(bare));
    samples.push(await timed(() => work(i)));
  }
  return { samples, bare: bareSamples };
}

/** `total` calls from `concurrency` callers at once; latency per call and the rate of the whole batch. */
async function concurrent(
  total: number,
  concurrency: number,
  work: () => Promise<unknown>,
): Promise<{ samples: number[]; rps: number }> {
  const samples: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) samples.push(await timed(work));
    }),
  );
  return { samples, rps: total / ((performance.now() - started) / 1000) };
}

// ---------------------------------------------------------------------------------------------------------------
// The gateway over one database

interface Gateway {
  runtime: Runtime;
  url: string;
  walletKey: string;
  merchantId: string;
  close(): Promise<void>;
}

const env = {
  PAYGATE_ENV: 'development',
  LOG_LEVEL: 'silent',
  PAYGATE_RATE_LIMIT_RPS: '1000000',
  PAYGATE_RATE_LIMIT_BURST: '1000000',
  PAYGATE_DATA_DIR: '.tmp/bench',
};

/**
 * A runtime and HTTP server over `db` serving `chains`, with a merchant paid at SETTLEMENT (EVM) and the local Solana
 * chain's settlement owner, and a test wallet key.
 * `balanceCacheMs: 0` makes every options call read the balances on chain (the default reuses them for 3 s).
 */
async function startGateway(
  db: Database,
  chains: Chains,
  secrets: Record<string, string>,
  balanceCacheMs?: number,
): Promise<Gateway> {
  const runtime = await createRuntime({
    config: loadConfig({ ...env, ...secrets, DATABASE_URL: db.url }),
    db,
    logger: pino({ level: 'silent' }),
    chains,
    checkout: balanceCacheMs === undefined ? undefined : { evm: { balanceCacheMs } },
  });
  const account = await createMerchantAccount(runtime, {
    settlementAddresses: {
      [chains.local!.evm.config.caip2]: SETTLEMENT,
      [chains.local!.solana.caip2]: chains.local!.solana.settlementOwner.address,
    },
  });
  const walletKey = (await createKey(runtime, { kind: 'wallet', mode: 'test', label: 'bench' })).secret;
  const server = await listen(createApp({ runtime }));
  return {
    runtime,
    url: server.url,
    walletKey,
    merchantId: account.merchantId,
    async close() {
      server.close();
      await runtime.close();
    },
  };
}

let references = 0;
async function newPayment(gw: Gateway): Promise<string> {
  const payment = await createPayment(gw.runtime, {
    merchantId: gw.merchantId,
    live: false,
    referenceId: `bench-${++references}`,
    amount: { unit: 'iso4217/USD', value: '1250' },
    expiresAt: Date.now() + 3_600_000,
    successUrl: null,
    errorUrl: null,
  });
  return payment.id;
}

interface Buyer {
  account: PrivateKeyAccount;
  caip10: string;
}

async function fundedBuyer(chains: Chains, tusd: string, tusdAmount: bigint): Promise<Buyer> {
  const account = privateKeyToAccount(generatePrivateKey());
  const caip10 = `${chains.local!.evm.config.caip2}:${account.address}`;
  await fundAccount(chains.local!, { account: caip10, asset: 'native', amount: (10n ** 18n).toString() });
  await fundAccount(chains.local!, { account: caip10, asset: tusd, amount: tusdAmount.toString() });
  return { account, caip10 };
}

async function options(gw: Gateway, paymentId: string, buyer: { caip10: string }): Promise<PaymentOption[]> {
  const text = await post(
    `${gw.url}/v1/gateway/payment/${paymentId}/options`,
    { 'api-key': gw.walletKey },
    { accounts: [buyer.caip10] },
  );
  const answer = JSON.parse(text) as OptionsAnswer;
  return answer.options ?? [];
}

function optionIn(all: PaymentOption[], asset: string): PaymentOption {
  const option = all.find((o) => o.amount.unit === `caip19/${asset}`);
  if (!option) throw new Error(`no option in ${asset}: ${JSON.stringify(all)}`);
  return option;
}

/** Signs the option's `eth_signTypedData_v4` action with the buyer's local key, as a wallet would. */
function signAction(buyer: Buyer, option: PaymentOption): Promise<Hex> {
  return buyer.account.signTypedData(typedDataOf(option));
}

// ---------------------------------------------------------------------------------------------------------------
// Sections

/** Opens the named database of BENCH_DATABASES (SQLite files under `ctx.dir`, one throwaway PostgreSQL). */
async function openBenchDatabase(
  ctx: SectionContext,
  name: string,
  file: string,
): Promise<{ db: Database; label: string }> {
  if (name === 'sqlite') return { db: openDatabase(`sqlite:${join(ctx.dir, file)}`), label: 'SQLite' };
  if (name === 'postgres') return { db: openDatabase((await ctx.pg()).url), label: 'PostgreSQL' };
  throw new Error(`BENCH_DATABASES: unknown database ${name}`);
}

interface SectionContext {
  bare: Awaited<ReturnType<typeof startBare>>;
  pg: () => Promise<ThrowawayPostgres>;
  dir: string;
}

interface SectionResult {
  title: string;
  rows: Row[];
  notes: string[];
  /** The options p50s that the issue's target applies to. */
  optionsP50: { what: string; p50: number }[];
}

async function evmSection(ctx: SectionContext): Promise<SectionResult> {
  const rpc = new RpcRecorder();
  const chains = await startChains({ chains: 'local', chainEnv: {} }, { observer: rpc.observer });
  const rows: Row[] = [];
  const optionsP50: SectionResult['optionsP50'] = [];
  const { bare } = ctx;
  const secrets = {
    PAYGATE_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
    PAYGATE_OPTION_SECRET: randomBytes(32).toString('base64'),
  };
  try {
    const local = chains.local!.evm;
    const tusd = `${local.config.caip2}/erc20:${local.testUsd}`;
    const native = `${local.config.caip2}/slip44:60`;
    // One buyer for the options and gasless rows: confirm relays nothing here (no job runs), so its funds stay put.
    const buyer = await fundedBuyer(chains, tusd, 100_000_000n);

    for (const name of DATABASES) {
      const { db, label } = await openBenchDatabase(ctx, name, 'gateway.sqlite');
      // Two runtimes over the same database: the default balance cache, and none (every call reads the chain).
      const cached = await startGateway(db, chains, secrets);
      const uncached = await startGateway(db, chains, secrets, 0);
      try {
        for (const gw of [cached, uncached]) {
          const paymentId = await newPayment(gw);
          const got = await options(gw, paymentId, buyer);
          if (got.length !== 2) throw new Error(`expected 2 options (ETH, TUSD), got ${JSON.stringify(got)}`);
          optionIn(got, tusd);
          optionIn(got, native);
          for (let i = 0; i < WARMUP; i++) await Promise.all([bare.call(), options(gw, paymentId, buyer)]);
        }

        // Sequential options, one payment (a wallet refreshing the list); two options each.
        for (const [gw, what] of [
          [uncached, `options, ${label}, balances read on chain (a first listing)`],
          [cached, `options, ${label}, balances cached (a listing repeated within 3 s)`],
        ] as const) {
          const paymentId = await newPayment(gw);
          rpc.reset();
          const { samples, bare: bareSamples } = await rpc.record(() =>
            interleaved(OPTIONS, bare.call, () => options(gw, paymentId, buyer)),
          );
          const p50 = percentile(samples, 50);
          optionsP50.push({ what, p50 });
          rows.push({
            what,
            n: OPTIONS,
            samples,
            bare: bareSamples,
            rpc: rpc.summary(OPTIONS),
            target: `p50 < ${TARGET_OPTIONS_P50_MS} ms: ${p50 < TARGET_OPTIONS_P50_MS ? '**met**' : '**not met**'}`,
          });
        }

        // A small concurrent batch: CONCURRENCY callers on one payment and buyer.
        const bareBatch = await concurrent(CONCURRENT, CONCURRENCY, bare.call);
        for (const [gw, what] of [
          [uncached, `options, ${label}, ${CONCURRENCY} at once, balances read on chain`],
          [cached, `options, ${label}, ${CONCURRENCY} at once, balances cached`],
        ] as const) {
          const paymentId = await newPayment(gw);
          rpc.reset();
          const batch = await rpc.record(() =>
            concurrent(CONCURRENT, CONCURRENCY, () => options(gw, paymentId, buyer)),
          );
          rows.push({
            what,
            n: CONCURRENT,
            samples: batch.samples,
            bare: bareBatch.samples,
            rps: batch.rps,
            rpc: rpc.summary(CONCURRENT),
          });
        }

        // Gasless confirm: a fresh payment, its options and the wallet's signature untimed; the confirm call timed.
        rows.push(
          await confirmSeries(
            ctx,
            rpc,
            `confirm, ${label}, gasless EIP-3009 TUSD (signature recovered, authorizationState, simulation)`,
            cached,
            CONFIRMS,
            async () => {
              const paymentId = await newPayment(cached);
              const option = optionIn(await options(cached, paymentId, buyer), tusd);
              return { paymentId, optionId: option.id, result: await signAction(buyer, option) };
            },
          ),
        );
      } finally {
        await cached.close();
        await uncached.close();
        await db.close();
      }
    }

    // Direct transfer: TUSD served as a plain ERC-20; the buyer sends the option's transaction (untimed, mined by
    // anvil at once), then the confirm call is timed.
    if (DIRECT > 0) {
      const db = openDatabase(`sqlite:${join(ctx.dir, 'direct.sqlite')}`);
      const gw = await startGateway(db, withDirectTusd(chains), secrets);
      const payer = await fundedBuyer(chains, tusd, 10_000_000_000n);
      const wallet = createWalletClient({
        account: payer.account,
        chain: local.clients.chain,
        transport: http(local.config.rpcUrl),
      });
      try {
        rows.push(
          await confirmSeries(
            ctx,
            rpc,
            'confirm, SQLite, direct TUSD transfer (transaction, block, receipt)',
            gw,
            DIRECT,
            async () => {
              const paymentId = await newPayment(gw);
              const option = optionIn(await options(gw, paymentId, payer), tusd);
              const action = option.actions[0]!;
              if (action.type !== 'walletRpc' || action.data.method !== 'eth_sendTransaction') {
                throw new Error(`expected eth_sendTransaction, got ${JSON.stringify(action)}`);
              }
              const tx = action.data.params[0] as { to: Hex; data: Hex; value: Hex };
              const hash = await wallet.sendTransaction({ to: tx.to, data: tx.data, value: BigInt(tx.value) });
              await local.clients.public.waitForTransactionReceipt({ hash });
              return { paymentId, optionId: option.id, result: hash };
            },
          ),
        );
      } finally {
        await gw.close();
        await db.close();
      }
    }
  } finally {
    await chains.close();
  }
  return {
    title: 'EVM (local anvil, TUSD + ETH)',
    rows,
    optionsP50,
    notes: [
      `Options: one funded buyer (TUSD and ETH, so two options: a gasless EIP-3009 signature and a native transfer), one payment per row, ${OPTIONS} sequential calls each after one call of the bare route; warm-up ${WARMUP} calls. Concurrent rows: ${CONCURRENT} calls from ${CONCURRENCY} callers, beside the bare route at the same concurrency.`,
      `Confirm: per payment, the options call and the wallet's signature (viem local account) are untimed; only the confirm call is timed (maxPollMs 0, answers \`processing\`); ${CONFIRM_WARMUP} warm-up confirms first. No job runs, so nothing is relayed. Direct transfers: TUSD served as a plain ERC-20 (\`eip3009: false\`), the buyer's transaction sent and mined (anvil automine) before the timed confirm.`,
      '"chain RPC" is what the server asked anvil per request (from the chains\' observer): calls, and their summed wall time.',
    ],
  };
}

/**
 * `n` confirms (after CONFIRM_WARMUP more), each of a payment `prepare` readies untimed (payment, options, the
 * wallet's action); only the confirm call is timed, after one call of the bare route.
 */
async function confirmSeries(
  ctx: SectionContext,
  rpc: RpcRecorder,
  what: string,
  gw: Gateway,
  n: number,
  prepare: () => Promise<{ paymentId: string; optionId: string; result: string }>,
): Promise<Row> {
  const samples: number[] = [];
  const bareSamples: number[] = [];
  rpc.reset();
  for (let i = 0; i < n + CONFIRM_WARMUP; i++) {
    const { paymentId, optionId, result } = await prepare();
    const confirm = async () => {
      const text = await post(
        `${gw.url}/v1/gateway/payment/${paymentId}/confirm`,
        { 'api-key': gw.walletKey },
        { optionId, results: [result] },
      );
      if ((JSON.parse(text) as { status: string }).status !== 'processing') throw new Error(`confirm: ${text}`);
    };
    const bareMs = await timed(ctx.bare.call);
    if (i < CONFIRM_WARMUP) {
      await confirm();
      continue;
    }
    bareSamples.push(bareMs);
    samples.push(await rpc.record(() => timed(confirm)));
  }
  return { what, n, samples, bare: bareSamples, rpc: rpc.summary(n) };
}

interface SolanaBuyer {
  signer: KeyPairSigner;
  caip10: string;
}

/** What the fetch call answers for the option's `build` action: the unsigned transaction, base64. */
async function fetchTransaction(gw: Gateway, paymentId: string, option: PaymentOption): Promise<string> {
  const action = option.actions[0]!;
  if (action.type !== 'build') throw new Error(`expected a build action, got ${JSON.stringify(action)}`);
  const text = await post(
    `${gw.url}/v1/gateway/payment/${paymentId}/fetch`,
    { 'api-key': gw.walletKey },
    { optionId: option.id, data: action.data.data },
  );
  const answer = JSON.parse(text) as { actions: { data: { method: string; params: { transaction: string }[] } }[] };
  const call = answer.actions[0]?.data;
  if (answer.actions.length !== 1 || call?.method !== 'solana_signTransaction') {
    throw new Error(`expected one solana_signTransaction, got ${text}`);
  }
  return call.params[0]!.transaction;
}

/** What a wallet does with solana_signTransaction: signs its own part (never broadcasts); the base64 signed wire. */
async function walletSigns(buyer: SolanaBuyer, transaction: string): Promise<string> {
  const tx = getTransactionDecoder().decode(Buffer.from(transaction, 'base64'));
  return getBase64EncodedWireTransaction(await partiallySignTransaction([buyer.signer.keyPair], tx));
}

async function solanaSection(ctx: SectionContext): Promise<SectionResult> {
  const rpc = new RpcRecorder();
  const chains = await startChains({ chains: 'local', chainEnv: {} }, { observer: rpc.observer });
  const rows: Row[] = [];
  const optionsP50: SectionResult['optionsP50'] = [];
  const { bare } = ctx;
  const secrets = {
    PAYGATE_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
    PAYGATE_OPTION_SECRET: randomBytes(32).toString('base64'),
  };
  try {
    const solana = chains.local!.solana;
    const tusd = `${solana.caip2}/token:${solana.mints.tusd.address}`;
    const native = `${solana.caip2}/slip44:501`;
    // One buyer for every row, holding SOL and TUSD (two options); each confirm really moves 12.5 TUSD (the service
    // broadcasts it), so it holds enough for every confirm. The service's fee payer pays the fees.
    const signer = await generateKeyPairSigner();
    await solana.faucet.airdropSol(signer.address, 10n ** 9n);
    const confirms = DATABASES.length * (SOLANA_CONFIRMS + CONFIRM_WARMUP);
    await solana.faucet.mintTokens(signer.address, solana.mints.tusd.address, BigInt(confirms + 10) * 12_500_000n);
    const buyer: SolanaBuyer = { signer, caip10: `${solana.caip2}:${signer.address}` };

    for (const name of DATABASES) {
      const { db, label } = await openBenchDatabase(ctx, name, 'solana.sqlite');
      const gw = await startGateway(db, chains, secrets);
      try {
        const paymentId = await newPayment(gw);
        const got = await options(gw, paymentId, buyer);
        if (got.length !== 2) throw new Error(`expected 2 options (SOL, TUSD), got ${JSON.stringify(got)}`);
        optionIn(got, native);
        const option = optionIn(got, tusd);
        for (let i = 0; i < WARMUP; i++) {
          await Promise.all([bare.call(), options(gw, paymentId, buyer)]);
          await Promise.all([bare.call(), fetchTransaction(gw, paymentId, option)]);
        }

        // Sequential options, one payment: balances are read on chain every time (no cache on Solana).
        {
          const what = `options, ${label}, SOL + TUSD (balances read on chain)`;
          const paymentId = await newPayment(gw);
          rpc.reset();
          const { samples, bare: bareSamples } = await rpc.record(() =>
            interleaved(SOLANA_OPTIONS, bare.call, () => options(gw, paymentId, buyer)),
          );
          const p50 = percentile(samples, 50);
          optionsP50.push({ what: `Solana ${what}`, p50 });
          rows.push({
            what,
            n: SOLANA_OPTIONS,
            samples,
            bare: bareSamples,
            rpc: rpc.summary(SOLANA_OPTIONS),
            target: `p50 < ${TARGET_OPTIONS_P50_MS} ms: ${p50 < TARGET_OPTIONS_P50_MS ? '**met**' : '**not met**'}`,
          });
        }

        // Sequential fetches of one TUSD option: each builds the transaction anew at the latest blockhash.
        {
          const paymentId = await newPayment(gw);
          const option = optionIn(await options(gw, paymentId, buyer), tusd);
          rpc.reset();
          const { samples, bare: bareSamples } = await rpc.record(() =>
            interleaved(SOLANA_FETCHES, bare.call, () => fetchTransaction(gw, paymentId, option)),
          );
          rows.push({
            what: `fetch, ${label}, TUSD (latest blockhash, transaction built)`,
            n: SOLANA_FETCHES,
            samples,
            bare: bareSamples,
            rpc: rpc.summary(SOLANA_FETCHES),
          });
        }

        // Confirm: a fresh payment, its options, the fetch and the wallet's signature untimed; the confirm timed.
        rows.push(
          await confirmSeries(
            ctx,
            rpc,
            `confirm, ${label}, TUSD (decoded, rebuilt and compared, signature verified, blockhash checked, co-signed, broadcast)`,
            gw,
            SOLANA_CONFIRMS,
            async () => {
              const paymentId = await newPayment(gw);
              const option = optionIn(await options(gw, paymentId, buyer), tusd);
              const signed = await walletSigns(buyer, await fetchTransaction(gw, paymentId, option));
              return { paymentId, optionId: option.id, result: signed };
            },
          ),
        );
      } finally {
        await gw.close();
        await db.close();
      }
    }
  } finally {
    await chains.close();
  }
  return {
    title: 'Solana (local LiteSVM, TUSD + SOL)',
    rows,
    optionsP50,
    notes: [
      `The local Solana chain is LiteSVM behind a JSON-RPC endpoint **in this process**: its RPC handling and transaction execution share the event loop with the client and the gateway, so they count in the gateway's latency (anvil runs in its own process). Transactions land at \`confirmed\` at once.`,
      `Options: one buyer holding SOL and TUSD (two options, each a \`build\` action), one payment, ${SOLANA_OPTIONS} sequential calls each after one call of the bare route; warm-up ${WARMUP} calls. Solana balances are not cached: every call reads them (getBalance, getMultipleAccounts).`,
      `Fetch: one TUSD option fetched ${SOLANA_FETCHES} times, each after one call of the bare route: the option checked, the latest blockhash read, the transaction built (fee payer, idempotent creation of the merchant's token account, TransferChecked with the payment's reference).`,
      `Confirm: per payment, options, fetch and the wallet's signature (@solana/kit \`partiallySignTransaction\`) untimed; the confirm call timed (maxPollMs 0, answers \`processing\`): the transaction decoded, rebuilt from the option and compared byte for byte, the buyer's Ed25519 signature verified, \`isBlockhashValid\`, the fee payer's signature added, \`sendTransaction\` (preflight and execution by LiteSVM), then the claim written. ${CONFIRM_WARMUP} warm-up confirms first; no job runs.`,
      '"chain RPC" is what the server asked the local Solana endpoint per request (from the chains\' observer): calls, and their summed wall time.',
    ],
  };
}

/** The benchmark's sections, in order; BENCH_SECTIONS picks some. */
const allSections: Record<string, (ctx: SectionContext) => Promise<SectionResult>> = {
  evm: evmSection,
  solana: solanaSection,
};
const sections = SECTIONS.map((name) => {
  const section = allSections[name];
  if (!section) throw new Error(`BENCH_SECTIONS: unknown section ${name} (${Object.keys(allSections).join(', ')})`);
  return section;
});

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-gateway-'));
  const bare = await startBare();
  for (let i = 0; i < WARMUP; i++) await bare.call();
  let pg: Promise<ThrowawayPostgres> | null = null;
  const results: SectionResult[] = [];
  try {
    const ctx: SectionContext = { bare, dir, pg: () => (pg ??= startThrowawayPostgres()) };
    for (const section of sections) results.push(await section(ctx));
  } finally {
    bare.close();
    if (pg) (await (pg as Promise<ThrowawayPostgres>)).stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const loadAfter = loadavg();
  const seconds = (performance.now() - started) / 1000;
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(' ');

  const misses = results.flatMap((r) => r.optionsP50).filter((o) => o.p50 >= TARGET_OPTIONS_P50_MS);
  const lines = [
    '## gateway',
    '',
    `${machineLine()} · load average ${load(loadBefore)} before, ${load(loadAfter)} after · in-process (fetch client, servers, runtime and the local Solana chain share one event loop; anvil and PostgreSQL in their own processes) · ${seconds.toFixed(0)} s in all`,
    '',
    `Target: options p50 < ${TARGET_OPTIONS_P50_MS} ms — ${
      misses.length === 0
        ? '**met** on every options row.'
        : `**not met** on ${misses.length} of ${results.flatMap((r) => r.optionsP50).length} sequential options rows.`
    }`,
  ];
  for (const r of results) {
    lines.push(
      '',
      `### ${r.title}`,
      '',
      '| What | n | p50 | p99 | bare route p50 | p50 / bare p50 | req/s | chain RPC per request | target |',
      '|---|---|---|---|---|---|---|---|---|',
      ...r.rows.map(tableRow),
      '',
      ...r.notes.flatMap((n) => [n, '']),
    );
  }
  const markdown = lines.join('\n');
  console.log(markdown);
  if (WRITE) writeSection('gateway', markdown);
}

await main();
