/**
 * Collected settlement on the run's local Solana chain, through the domain's own jobs: a checkout harness whose
 * merchant is in collected mode on a Solana chain serving live payments, deposit addresses handed out by the gateway's
 * `getDepositOptions` (the real allocation), plain SPL transfers sent by fresh wallets as an exchange would send them,
 * and helpers that queue `settlement.scanDeposits` as the timer does and drain the queue.
 */
import { generateKeyPairSigner, type Address, type KeyPairSigner, type Signature } from '@solana/kit';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import type { Chains } from '../../server/src/chains/index.js';
import type { SettlementPort } from '../../server/src/chains/adapter.js';
import { associatedTokenAccount } from '../../server/src/chains/solana/transfer.js';
import type { DiscrepancyRow } from '../../server/src/db/queries/discrepancies.js';
import { listDiscrepancies } from '../../server/src/db/queries/discrepancies.js';
import { findPayment, type PaymentRow } from '../../server/src/db/queries/payments.js';
import type { components } from '../../server/src/generated/gateway.js';
import { enqueueDepositScans } from '../../server/src/settlement/collected/detection.js';
import { listLedgerEntries, type LedgerEntry } from '../../server/src/settlement/ledger.js';
import type { Database } from '@paygate/server';
import { startCheckoutHarness, type CheckoutHarness } from '../gateway/checkout.js';
import { expectJson } from '../gateway/harness.js';
import { sharedChains } from '../helpers/chain.js';
import { fundedWallet, localSolanaRpc, signedTransaction } from '../helpers/solana.js';
import { driveJobsUntil, eventually, solanaTransactionOf } from '../helpers/wait.js';
import { FEE } from './detection.js';

type DepositAnswer = components['schemas']['GetDepositOptionsResponse'];

/** The shared chains with the local Solana chain serving live payments (as mainnet would). */
export function liveSolana(chains: Chains): Chains {
  return { ...chains, solana: chains.solana.map((c) => ({ ...c, config: { ...c.config, mode: 'live' as const } })) };
}

export interface Sent {
  signature: Signature;
  slot: bigint;
}

export interface SolanaCollectedHarness extends CheckoutHarness {
  caip2: string;
  /** CAIP-19 of TUSD on the local Solana chain. */
  asset: string;
  port: SettlementPort;
  /** The merchant's Solana payout address: a fresh owner, so its balance starts at 0. */
  payoutAddress: string;
  /** A live payment of `usd` (cents) with its Solana deposit address, as the gateway hands it to a buyer. */
  livePayment(cents?: number, expiresInSeconds?: number): Promise<{ paymentId: string; deposit: Address }>;
  /** A fresh wallet holding SOL and `tusd` minor units of TUSD: it has never called Paygate. */
  sender(tusd?: bigint): Promise<KeyPairSigner>;
  /** One transaction of plain SPL transfers (creating each destination's token account, as wallets do); landed. */
  transfer(from: KeyPairSigner, to: [Address, bigint][]): Promise<Sent>;
  /** Queues the deposit scans as the timer does and runs the due jobs, until `done` answers. */
  scanUntil<T>(what: string, done: () => Promise<T | null | undefined | false>): Promise<T>;
  /** Runs due jobs, moving the business clock by a recheck between rounds, until `done` answers. */
  driveUntil<T>(what: string, done: () => Promise<T | null | undefined | false>): Promise<T>;
  /** Moves the chain past `finalized` for everything landed so far (32 slots; the whole per-process chain). */
  finalize(): void;
  /** What `owner` holds of TUSD on the chain, read through the settlement port. */
  balance(owner: string): Promise<bigint>;
  payment(paymentId: string): Promise<PaymentRow>;
  ledger(paymentId: string): Promise<LedgerEntry[]>;
  discrepancies(paymentId: string): Promise<DiscrepancyRow[]>;
  transfers(paymentId: string): Promise<{ tx_id: string; state: string; amount: string; position: number }[]>;
}

export async function startSolanaCollectedHarness(
  options: { db?: Database; config?: Record<string, string> } = {},
): Promise<SolanaCollectedHarness> {
  const shared = await sharedChains();
  const local = shared.local!.solana;
  const caip2 = local.caip2;
  const payoutAddress = (await generateKeyPairSigner()).address;
  const h = await startCheckoutHarness({
    ...options,
    chains: liveSolana(shared),
    merchant: { feeConfig: FEE, settlementAddresses: { [caip2]: payoutAddress } },
  });
  // The business clock at the Solana chain's time: detection compares a transfer's block time with expiresAt.
  // The local endpoint serves no getBlockTime: a landed transaction's block time is the chain's time now.
  const rpc = await localSolanaRpc();
  const tick = await solanaTransactionOf(rpc, await local.faucet.airdropSol(payoutAddress, 1_000_000n));
  h.clock.set(Number(tick.blockTime) * 1000);
  const knex = h.runtime.db.knex;
  await knex('merchants').where({ id: h.account.merchantId }).update({ settlement_mode: 'collected' });
  const checkout = h.runtime.checkout!;
  const port = checkout.adapters.find((a) => a.isChainId(caip2))!.settlement!;
  const asset = `${caip2}/token:${local.mints.tusd.address}`;
  const mint = local.mints.tusd.address;
  const driver = { clock: h.clock, drain: () => h.runtime.jobs.drain() };
  return {
    ...h,
    caip2,
    asset,
    port,
    payoutAddress,
    async livePayment(cents = 1250, expiresInSeconds) {
      const paymentId = await h.createPayment({
        live: true,
        amount: { unit: 'iso4217/USD', value: String(cents) },
        ...(expiresInSeconds !== undefined && { expiresInSeconds }),
      });
      const answer = await expectJson<DepositAnswer>(
        await h.call('GET', `/v1/gateway/payment/${paymentId}/deposit`, { headers: { 'Api-Key': h.wallet.liveKey } }),
        200,
      );
      const entry = answer.deposits.find((d) => d.chain === caip2 && d.amount.unit === `caip19/${asset}`);
      if (!entry) throw new Error(`no Solana TUSD deposit for ${paymentId}: ${JSON.stringify(answer)}`);
      return { paymentId, deposit: entry.address as Address };
    },
    sender: (tusd = 100_000_000n) => fundedWallet({ tusd }),
    async transfer(from, to) {
      const source = await associatedTokenAccount(from.address, mint);
      const instructions = [];
      for (const [owner, amount] of to) {
        const ata = await associatedTokenAccount(owner, mint);
        instructions.push(
          getCreateAssociatedTokenIdempotentInstruction({ payer: from, ata, owner, mint }),
          getTransferCheckedInstruction({ source, mint, destination: ata, authority: from, amount, decimals: 6 }),
        );
      }
      const signed = await signedTransaction(from, instructions);
      await rpc.sendTransaction(signed.wire, { encoding: 'base64' }).send();
      const landed = await solanaTransactionOf(rpc, signed.signature);
      if (landed.meta?.err) throw new Error(`transfer ${signed.signature} failed: ${JSON.stringify(landed.meta.err)}`);
      return { signature: signed.signature, slot: landed.slot };
    },
    scanUntil: (what, done) =>
      eventually(what, async () => {
        await enqueueDepositScans(checkout);
        await h.runtime.jobs.drain();
        return done();
      }),
    driveUntil: (what, done) => driveJobsUntil(what, driver, done),
    finalize: () => local.test.warpSlots(33n),
    balance: (owner) => port.balance(caip2, asset, owner),
    payment: async (id) => (await findPayment(knex, id))!,
    ledger: (paymentId) => listLedgerEntries(knex, { paymentId }),
    discrepancies: async (paymentId) =>
      (await listDiscrepancies(knex, { paymentId, limit: 100 })).sort((a, b) =>
        a.receivedValue.localeCompare(b.receivedValue),
      ),
    transfers: (paymentId) =>
      knex('deposit_transfers')
        .where({ payment_id: paymentId })
        .orderBy(['block_number', 'position'])
        .select('tx_id', 'state', 'amount', 'position'),
  };
}
