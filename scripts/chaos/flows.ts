/**
 * The payments a chaos run drives, each as a buyer or a merchant does it over HTTP against the API processes, with
 * the buyer's own wallet talking to the chain directly (only the gateway is behind the fault proxies):
 *   evmGasless      a direct-settlement payment paid by an EIP-3009 signature the relayer submits
 *   evmCollected    a collected payment paid by the wallet's signature to its deposit address, then partly refunded
 *   evmPartial      a collected payment paid by two plain transfers to its deposit address (an exchange's way)
 *   solana          a direct payment on Solana: options, fetch, the wallet signs, confirm broadcasts
 *   solanaPay       a Solana Pay transaction request: the wallet fetches, signs and sends it itself
 *   simulated       a test-mode payment simulated to success: its events are the run's webhook deliveries
 * Sweeps and payouts are the workers' own (every scan and every PAYGATE_PAYOUT_INTERVAL_S). A flow answers the
 * payment's id; its outcome is read from the database at the end.
 */
import { randomUUID } from 'node:crypto';
import {
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  type Base64EncodedWireTransaction,
} from '@solana/kit';
import { createWalletClient, erc20Abi, getAddress, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { fundAccount } from '../../server/src/chains/faucet.js';
import type { PaymentOption } from '../../test/gateway/checkout.js';
import { typedDataOf } from '../../test/gateway/checkout.js';
import type { ApiCall } from './client.js';
import type { Prng } from './prng.js';
import type { ChaosMerchant, ChaosWorld } from './world.js';

export const FLOW_KINDS = ['evmGasless', 'evmCollected', 'evmPartial', 'solana', 'solanaPay', 'simulated'] as const;
export type FlowKind = (typeof FLOW_KINDS)[number];

export interface FlowContext {
  world: ChaosWorld;
  call: ApiCall;
  rng: Prng;
  /** Notes a refund asked for (by the merchant API's answer). */
  refunded(outcome: string): void;
}

export interface FlowResult {
  kind: FlowKind;
  paymentId: string | null;
  /** Why the flow stopped before paying, if it did (an answer the gateway gave, never a crash of the run). */
  stopped?: string;
}

const merchantOf = (world: ChaosWorld, mode: 'direct' | 'collected') => world.merchants.find((m) => m.mode === mode)!;

const merchantHeaders = (m: ChaosMerchant, live: boolean) => ({
  'Api-Key': live ? m.account.liveKey : m.account.testKey,
  'Merchant-Id': m.account.merchantId,
});

async function createPayment(ctx: FlowContext, m: ChaosMerchant, live: boolean): Promise<string> {
  const cents = ctx.rng.int(100, 2_000);
  const answer = await ctx.call('POST', '/v1/merchant/payment', {
    headers: { ...merchantHeaders(m, live), 'Idempotency-Key': randomUUID() },
    body: { amount: { unit: 'iso4217/USD', value: String(cents) }, referenceId: `chaos_${randomUUID()}` },
  });
  if (answer.status !== 201)
    throw new Error(`create payment answered ${answer.status}: ${JSON.stringify(answer.json)}`);
  return (answer.json as { paymentId: string }).paymentId;
}

async function optionIn(ctx: FlowContext, paymentId: string, account: string, asset: string) {
  const answer = await ctx.call('POST', `/v1/gateway/payment/${paymentId}/options`, {
    headers: { 'Api-Key': ctx.world.walletKey },
    body: { accounts: [account] },
  });
  if (answer.status !== 200) return null;
  const options = (answer.json as { options?: PaymentOption[] }).options ?? [];
  return options.find((o) => o.amount.unit === `caip19/${asset}`) ?? null;
}

const confirm = (ctx: FlowContext, paymentId: string, optionId: string, result: string) =>
  ctx.call('POST', `/v1/gateway/payment/${paymentId}/confirm`, {
    headers: { 'Api-Key': ctx.world.walletKey },
    body: { optionId, results: [result] },
  });

function evmParts(world: ChaosWorld) {
  const local = world.chains.local!.evm;
  const caip2 = local.config.caip2;
  return { local, caip2, tusd: `${caip2}/erc20:${local.testUsd}` };
}

async function evmBuyer(world: ChaosWorld, tusd: bigint) {
  const { local, caip2, tusd: asset } = evmParts(world);
  const account = privateKeyToAccount(generatePrivateKey());
  const caip10 = `${caip2}:${account.address}`;
  await fundAccount(world.chains.local!, { account: caip10, asset: 'native', amount: (10n ** 17n).toString() });
  await fundAccount(world.chains.local!, { account: caip10, asset, amount: tusd.toString() });
  const wallet = createWalletClient({ account, chain: local.clients.chain, transport: http(local.config.rpcUrl) });
  return { account, caip10, wallet };
}

/** Pays the TUSD option by its EIP-3009 signature; answers the option's recipient and amount. */
async function payBySignature(ctx: FlowContext, m: ChaosMerchant): Promise<FlowResult & { to?: string }> {
  const kind: FlowKind = m.mode === 'direct' ? 'evmGasless' : 'evmCollected';
  const paymentId = await createPayment(ctx, m, true);
  const buyer = await evmBuyer(ctx.world, 100_000_000n);
  const option = await optionIn(ctx, paymentId, buyer.caip10, evmParts(ctx.world).tusd);
  if (!option) return { kind, paymentId, stopped: 'no option' };
  const typed = typedDataOf(option);
  const signature = await buyer.wallet.signTypedData({ account: buyer.account, ...typedDataOf(option) });
  const answer = await confirm(ctx, paymentId, option.id, signature);
  if (answer.status !== 200) return { kind, paymentId, stopped: `confirm ${answer.status}` };
  return { kind, paymentId, to: String(typed.message.to) };
}

export async function evmGasless(ctx: FlowContext): Promise<FlowResult> {
  const { to: _to, ...result } = await payBySignature(ctx, merchantOf(ctx.world, 'direct'));
  return result;
}

/** Pays, waits (bounded) for success, then refunds part of it to the paying wallet. */
export async function evmCollected(ctx: FlowContext, until: () => boolean): Promise<FlowResult> {
  const m = merchantOf(ctx.world, 'collected');
  const { to: _to, ...result } = await payBySignature(ctx, m);
  if (result.stopped || !result.paymentId || !ctx.rng.chance(0.5)) return result;
  const paymentId = result.paymentId;
  const started = Date.now();
  while (!until() && Date.now() - started < 120_000) {
    const status = await ctx.call('GET', `/v1/merchant/payment/${paymentId}/status`, {
      headers: merchantHeaders(m, true),
    });
    const value = (status.json as { status?: string } | null)?.status;
    if (value === 'succeeded') {
      const refund = await ctx.call('POST', `/v1/merchant/payment/${paymentId}/refund`, {
        headers: { ...merchantHeaders(m, true), 'Idempotency-Key': randomUUID() },
        body: { amount: String(ctx.rng.int(100_000, 1_000_000)), reason: 'chaos' },
      });
      ctx.refunded(refund.status === 200 ? 'asked' : `refused ${refund.status}`);
      break;
    }
    if (value && value !== 'requires_action' && value !== 'processing') break;
    await new Promise<void>((resolve) => setTimeout(resolve, 1_000));
  }
  return result;
}

/** Two plain transfers to the deposit address: a partial payment, then the rest (sometimes a little more). */
export async function evmPartial(ctx: FlowContext): Promise<FlowResult> {
  const m = merchantOf(ctx.world, 'collected');
  const paymentId = await createPayment(ctx, m, true);
  const buyer = await evmBuyer(ctx.world, 100_000_000n);
  const { local } = evmParts(ctx.world);
  const option = await optionIn(ctx, paymentId, buyer.caip10, evmParts(ctx.world).tusd);
  if (!option) return { kind: 'evmPartial', paymentId, stopped: 'no option' };
  const typed = typedDataOf(option);
  const to = getAddress(String(typed.message.to));
  const total = BigInt(String(typed.message.value)) + (ctx.rng.chance(0.2) ? BigInt(ctx.rng.int(1, 50_000)) : 0n);
  const first = (total * BigInt(ctx.rng.int(20, 80))) / 100n;
  for (const amount of [first, total - first]) {
    const hash: Hex = await buyer.wallet.writeContract({
      account: buyer.account,
      address: local.testUsd,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [to, amount],
      gas: 100_000n,
    });
    await local.clients.public.waitForTransactionReceipt({ hash });
  }
  return { kind: 'evmPartial', paymentId };
}

function solanaParts(world: ChaosWorld) {
  const local = world.chains.local!.solana;
  return { local, asset: `${local.caip2}/token:${local.mints.tusd.address}` };
}

async function solanaBuyer(world: ChaosWorld) {
  const { local } = solanaParts(world);
  const signer = await generateKeyPairSigner();
  await local.faucet.mintTokens(signer.address, local.mints.tusd.address, 100_000_000n);
  return signer;
}

const signedBy = async (signer: Awaited<ReturnType<typeof solanaBuyer>>, base64: string) =>
  getBase64EncodedWireTransaction(
    await partiallySignTransaction([signer.keyPair], getTransactionDecoder().decode(Buffer.from(base64, 'base64'))),
  );

export async function solana(ctx: FlowContext): Promise<FlowResult> {
  const m = merchantOf(ctx.world, 'direct');
  const paymentId = await createPayment(ctx, m, true);
  const signer = await solanaBuyer(ctx.world);
  const { local, asset } = solanaParts(ctx.world);
  const option = await optionIn(ctx, paymentId, `${local.caip2}:${signer.address}`, asset);
  if (!option) return { kind: 'solana', paymentId, stopped: 'no option' };
  const action = option.actions[0]!;
  const fetched = await ctx.call('POST', `/v1/gateway/payment/${paymentId}/fetch`, {
    headers: { 'Api-Key': ctx.world.walletKey },
    body: { optionId: option.id, data: action.type === 'build' ? action.data.data : '' },
  });
  if (fetched.status !== 200) return { kind: 'solana', paymentId, stopped: `fetch ${fetched.status}` };
  const params = (fetched.json as { actions: { data: { params: { transaction: string }[] } }[] }).actions[0]!.data
    .params[0]!;
  const answer = await confirm(ctx, paymentId, option.id, await signedBy(signer, params.transaction));
  if (answer.status !== 200) return { kind: 'solana', paymentId, stopped: `confirm ${answer.status}` };
  return { kind: 'solana', paymentId };
}

export async function solanaPay(ctx: FlowContext): Promise<FlowResult> {
  const m = merchantOf(ctx.world, 'direct');
  const paymentId = await createPayment(ctx, m, true);
  const signer = await solanaBuyer(ctx.world);
  const request = await ctx.call('POST', `/v1/gateway/payment/${paymentId}/solana-pay`, {
    body: { account: signer.address },
  });
  if (request.status !== 200) return { kind: 'solanaPay', paymentId, stopped: `solana-pay ${request.status}` };
  const wire = await signedBy(signer, (request.json as { transaction: string }).transaction);
  // The wallet sends it itself, to the chain directly: the gateway finds it by its reference key.
  await ctx.world.chains.solana[0]!.rpc.sendTransaction(wire as Base64EncodedWireTransaction, {
    encoding: 'base64',
  }).send();
  return { kind: 'solanaPay', paymentId };
}

export async function simulated(ctx: FlowContext): Promise<FlowResult> {
  const m = ctx.rng.pick(ctx.world.merchants);
  const paymentId = await createPayment(ctx, m, false);
  for (const to of ['processing', 'succeeded']) {
    const answer = await ctx.call('POST', `/v1/merchant/test/payment/${paymentId}/simulate`, {
      headers: merchantHeaders(m, false),
      body: { to },
    });
    if (answer.status !== 200) return { kind: 'simulated', paymentId, stopped: `simulate ${answer.status}` };
  }
  return { kind: 'simulated', paymentId };
}

export function runFlow(kind: FlowKind, ctx: FlowContext, until: () => boolean): Promise<FlowResult> {
  switch (kind) {
    case 'evmGasless':
      return evmGasless(ctx);
    case 'evmCollected':
      return evmCollected(ctx, until);
    case 'evmPartial':
      return evmPartial(ctx);
    case 'solana':
      return solana(ctx);
    case 'solanaPay':
      return solanaPay(ctx);
    case 'simulated':
      return simulated(ctx);
  }
}
