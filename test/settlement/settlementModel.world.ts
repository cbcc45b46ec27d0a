/**
 * The real side of the settlement model test (settlementModel.commands.ts): a runtime and its HTTP server over a fresh
 * database, the run's anvil serving live payments, one merchant with a fee and a fresh payout address, and the calls
 * a sequence makes: the merchant and gateway APIs over HTTP, buyers' real transfers and signatures, the scan, the
 * sweep and payout planners and the job queue driven on the injected clock.
 */
import { randomBytes } from 'node:crypto';
import { createApp, createRuntime, type Config, type Runtime } from '@paygate/server';
import { pino } from 'pino';
import { createWalletClient, erc20Abi, getAddress, http, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { fundAccount } from '../../server/src/chains/faucet.js';
import { updateMerchantSettings } from '../../server/src/accounts/merchants.js';
import { createKey } from '../../server/src/accounts/index.js';
import type { Chains } from '../../server/src/chains/index.js';
import type { LocalEvmChain } from '../../server/src/chains/local.js';
import { scanDeposits } from '../../server/src/settlement/collected/detection.js';
import { planPayouts } from '../../server/src/settlement/payouts.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import type { MoveDeps } from '../../server/src/settlement/moves.js';
import { sharedChains } from '../helpers/chain.js';
import { testConfig } from '../helpers/config.js';
import type { TestDatabase } from '../helpers/db.js';
import { createMerchantAccount, type MerchantAccount } from '../helpers/fixtures.js';
import { listen, type Listening } from '../helpers/http.js';
import { testClock, type TestClock } from '../helpers/runtime.js';
import { receiptOf } from '../helpers/wait.js';
import { LOCAL, signAction, type Buyer, type OptionsAnswer } from '../gateway/checkout.js';

/** 0.30 USD + 2.9 %: every payment pays a fee, so a fee collected twice or never shows. */
export const MODEL_FEE = {
  kind: 'base_plus_percent',
  base: { unit: 'iso4217/USD', value: '30' },
  percent: { numerator: '29', denominator: '1000' },
};
/** The moves' recheck delay, instead of 2 s: a round of the job driver moves the clock by this much. */
const MOVE_RECHECK_MS = 50;
/** A round of `settle` moves the clock this far: direct settlement's recheck (settlement/direct/settleDirect.ts). */
const ROUND_MS = 15_000;

/** Confirmations before a deposit counts: a reorganisation within them is one the server must survive cleanly. */
export const CONFIRMATIONS = 3;

/**
 * The local chains with the EVM chain serving live payments, as a mainnet would, and counting a transfer only at
 * CONFIRMATIONS (a reorg deeper than that is reported loudly as a shortfall, by design: decisions §22.17).
 */
function liveEvm(chains: Chains): Chains {
  return {
    ...chains,
    evm: chains.evm.map((c) => ({
      ...c,
      config: { ...c.config, mode: 'live' as const, confirmations: CONFIRMATIONS },
    })),
  };
}

export interface World {
  runtime: Runtime;
  server: Listening;
  clock: TestClock;
  local: LocalEvmChain;
  chains: Chains;
  tusd: string;
  account: MerchantAccount;
  walletKey: string;
  payoutAddress: Address;
  collection: Address;
  treasury: Address;
  balance(address: string): Promise<bigint>;
  merchant(method: string, path: string, body?: unknown): Promise<Response>;
  gateway(method: string, path: string, body?: unknown): Promise<Response>;
  setMode(mode: 'direct' | 'collected'): Promise<void>;
  /** Stops the runtime (its job runner and server) and starts a new one over the same database and clock. */
  restart(): Promise<void>;
  scan(): Promise<void>;
  /** Runs due jobs, mines to finality and moves the clock, for `rounds` rounds or until no move is in flight. */
  settleMoves(rounds?: number): Promise<void>;
  planSweeps(): Promise<string[]>;
  planPayouts(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startWorld(database: TestDatabase): Promise<World> {
  const chains = liveEvm(await sharedChains());
  const local = chains.local!.evm;
  const block = await local.clients.public.getBlock();
  // The business clock starts at the chain's time, so authorizations' deadlines mean the same to both.
  const clock = testClock(Number(block.timestamp) * 1000);
  // One configuration for every runtime of the world: a restart keeps the deposit seed and the encryption key.
  const config: Config = testConfig({ PAYGATE_RATE_LIMIT_RPS: '1000000', PAYGATE_RATE_LIMIT_BURST: '1000000' });
  const open = async (): Promise<{ runtime: Runtime; server: Listening }> => {
    const runtime = await createRuntime({
      config,
      db: database.db,
      migrate: false,
      logger: pino({ level: 'silent' }),
      now: clock.now,
      chains,
    });
    Object.assign(runtime.checkout!, { moveRecheckMs: MOVE_RECHECK_MS } satisfies Partial<MoveDeps>);
    return { runtime, server: await listen(createApp({ runtime, validateResponses: true })) };
  };
  let current = await open();
  const payoutAddress = getAddress(`0x${randomBytes(20).toString('hex')}`);
  const account = await createMerchantAccount(current.runtime, {
    feeConfig: MODEL_FEE,
    settlementAddresses: { [LOCAL]: payoutAddress },
  });
  const walletKey = (await createKey(current.runtime, { kind: 'wallet', mode: 'live', label: 'model wallet' })).secret;
  const port = current.runtime.checkout!.adapters.find((a) => a.namespace === 'eip155')!.settlement!;
  const collection = getAddress(await port.keyAddress(LOCAL, { role: 'collection' }));
  const treasury = getAddress(await port.keyAddress(LOCAL, { role: 'devTreasury' }));
  const tusd = `${LOCAL}/erc20:${local.testUsd}`;
  const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${current.server.url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const inFlight = async () => {
    const knex = current.runtime.db.knex;
    const [sweeps, payouts, refunds] = await Promise.all([
      knex('sweeps').whereIn('state', ['planned', 'sent']).count({ n: '*' }),
      knex('payouts').whereIn('state', ['planned', 'sent']).count({ n: '*' }),
      knex('onchain_refunds').whereIn('state', ['planned', 'sent']).count({ n: '*' }),
    ]);
    return [sweeps, payouts, refunds].reduce((s, r) => s + Number((r[0] as { n: number | string }).n), 0);
  };
  const world: World = {
    get runtime() {
      return current.runtime;
    },
    get server() {
      return current.server;
    },
    clock,
    local,
    chains,
    tusd,
    account,
    walletKey,
    payoutAddress,
    collection,
    treasury,
    balance: (address) =>
      local.clients.public.readContract({
        address: local.testUsd,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [getAddress(address)],
      }),
    merchant: (method, path, body) =>
      send(method, path, { 'Api-Key': account.liveKey, 'Merchant-Id': account.merchantId }, body),
    gateway: (method, path, body) => send(method, path, { 'Api-Key': walletKey }, body),
    async setMode(mode) {
      await updateMerchantSettings(
        current.runtime,
        account.merchantId,
        { settlementMode: mode },
        { depositSeed: true },
      );
    },
    async restart() {
      await current.server.close();
      await current.runtime.close();
      current = await open();
    },
    async scan() {
      await scanDeposits(current.runtime.checkout!, LOCAL);
    },
    async settleMoves(rounds = 12) {
      for (let i = 0; i < rounds; i++) {
        await current.runtime.jobs.drain();
        if (i > 0 && (await inFlight()) === 0) return;
        await local.test.mine({ blocks: 64 });
        clock.advance(ROUND_MS);
      }
      await current.runtime.jobs.drain();
    },
    planSweeps: () => planSweeps(current.runtime.checkout!),
    planPayouts: () => planPayouts(current.runtime.checkout!),
    async close() {
      await current.server.close();
      await current.runtime.close();
    },
  };
  // Sequences start in collected mode (the model's first mode); a switch is a command.
  await world.setMode('collected');
  // Detection starts at the chain's head now: earlier sequences' transfers are another database's.
  await world.scan();
  return world;
}

export type { Buyer };

/** A fresh buyer holding `tusd` TUSD minor units and ether for gas: one per payment, so its balance is its story. */
export async function startBuyer(world: World, tusd: bigint): Promise<Buyer> {
  const account = privateKeyToAccount(generatePrivateKey());
  const caip10 = `${LOCAL}:${account.address}`;
  await fundAccount(world.chains.local!, { account: caip10, asset: 'native', amount: (10n ** 17n).toString() });
  await fundAccount(world.chains.local!, { account: caip10, asset: world.tusd, amount: tusd.toString() });
  const wallet = createWalletClient({
    account,
    chain: world.local.clients.chain,
    transport: http(world.local.config.rpcUrl),
  });
  return { account, caip10, wallet };
}

/** A plain TUSD transfer from the buyer, as an exchange sends it; resolves once mined. */
export async function transfer(world: World, buyer: Buyer, to: string, amount: bigint): Promise<Hex> {
  const hash = await buyer.wallet.writeContract({
    account: buyer.account,
    address: world.local.testUsd,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [getAddress(to), amount],
    gas: 100_000n,
  });
  await receiptOf(world.local.clients.public, hash);
  return hash;
}

/**
 * The buyer pays through the checkout as a wallet does: the options for its account, the TUSD option's EIP-3009
 * authorization signed and confirmed. Answers where the option sent the money and how much, or null when the checkout
 * offered nothing or refused the confirm (the payment was not payable).
 */
export async function payByWallet(
  world: World,
  buyer: Buyer,
  paymentId: string,
): Promise<{ to: Address; amount: bigint } | null> {
  const res = await world.gateway('POST', `/v1/gateway/payment/${paymentId}/options`, { accounts: [buyer.caip10] });
  if (res.status !== 200) return null;
  const answer = (await res.json()) as OptionsAnswer;
  const option = answer.options?.find((o) => o.amount.unit === `caip19/${world.tusd}`);
  if (!option) return null;
  const action = option.actions[0]!;
  if (action.type !== 'walletRpc' || action.data.method !== 'eth_signTypedData_v4') return null;
  const typed = JSON.parse(action.data.params[1] as string) as { message: { to: string; value: string } };
  const signature = await signAction(buyer, option);
  const confirmed = await world.gateway('POST', `/v1/gateway/payment/${paymentId}/confirm`, {
    optionId: option.id,
    results: [signature],
  });
  if (confirmed.status !== 200) return null;
  return { to: getAddress(typed.message.to), amount: BigInt(typed.message.value) };
}
