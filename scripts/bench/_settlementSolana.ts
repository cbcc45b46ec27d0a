/**
 * The Solana rows of `npm run bench -- settlement`: deposit detection (settlement/collected/detection.ts over the Solana
 * `DepositScan`, chains/solana/depositScan.ts) on the local Solana chain, against a baseline of bare
 * `getSignaturesForAddress` polling of the same deposit token accounts in the same run (the least any detection by
 * token account must do; it does not read the transactions, so it knows neither amount nor sender).
 *
 * Throughput: BENCH_SOLANA_DEPOSITS plain SPL transfers (five to a transaction) to as many collected payments'
 * deposit addresses; one scan then records and credits them all, timed, beside the baseline's listing of every
 * deposit token account (median of BENCH_BASELINE_RUNS). Latency: BENCH_LATENCY_ROUNDS single transfers; from the
 * moment the node reports the transaction confirmed, detection scans back to back until the payment is `succeeded`
 * while the baseline lists the account back to back until the signature appears; both at once.
 */
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import type { Runtime } from '@paygate/server';
import type { Chains } from '../../server/src/chains/index.js';
import { allocateDerivationIndex, insertDepositAddress } from '../../server/src/db/queries/depositAccounts.js';
import { associatedTokenAccount } from '../../server/src/chains/solana/transfer.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { scanDeposits } from '../../server/src/settlement/collected/detection.js';

const DEPOSITS = Number(process.env.BENCH_SOLANA_DEPOSITS ?? 100);
const PER_TRANSACTION = 5;
const AMOUNT = 12_500_000n;

export interface SolanaDetectionResult {
  deposits: number;
  scanMs: number;
  baselineMs: number;
  detection: number[];
  baseline: number[];
}

export async function benchSolanaDetection(
  rt: Runtime,
  chains: Chains,
  merchantId: string,
  options: { baselineRuns: number; latencyRounds: number },
): Promise<SolanaDetectionResult> {
  const local = chains.local!.solana;
  const chain = chains.solana[0]!;
  const rpc = chain.rpc;
  const caip2 = local.caip2;
  const mint = local.mints.tusd.address;
  const checkout = rt.checkout!;
  const knex = rt.db.knex;
  const settlement = checkout.adapters.find((a) => a.isChainId(caip2))!.settlement!;

  const newDeposit = async (): Promise<{ paymentId: string; owner: Address; ata: Address }> => {
    const payment = await createPayment(rt, {
      merchantId,
      live: false,
      referenceId: 'bench',
      amount: { unit: 'iso4217/USD', value: '1250' },
      expiresAt: Date.now() + 3600_000,
      successUrl: null,
      errorUrl: null,
    });
    const index = await allocateDerivationIndex(knex, payment.id, Date.now());
    const owner = (await settlement.keyAddress(caip2, { role: 'deposit', index })) as Address;
    await insertDepositAddress(knex, {
      chain: caip2,
      address: owner,
      paymentId: payment.id,
      derivationIndex: index,
      createdAt: Date.now(),
    });
    return { paymentId: payment.id, owner, ata: await associatedTokenAccount(owner, mint) };
  };

  const buyer: KeyPairSigner = await generateKeyPairSigner();
  await local.faucet.airdropSol(buyer.address, 10_000_000_000n);
  await local.faucet.mintTokens(buyer.address, mint, AMOUNT * BigInt(DEPOSITS + options.latencyRounds));
  const source = await associatedTokenAccount(buyer.address, mint);

  const statusOf = async (signature: Signature) =>
    (await rpc.getSignatureStatuses([signature]).send()).value[0]?.confirmationStatus ?? null;
  /** Sends one transaction paying each owner AMOUNT; answers once the node reports it confirmed, with its slot. */
  const pay = async (owners: Address[]): Promise<bigint> => {
    const instructions: Instruction[] = [];
    for (const owner of owners) {
      const ata = await associatedTokenAccount(owner, mint);
      instructions.push(
        getCreateAssociatedTokenIdempotentInstruction({ payer: buyer, ata, owner, mint }),
        getTransferCheckedInstruction({
          source,
          mint,
          destination: ata,
          authority: buyer,
          amount: AMOUNT,
          decimals: 6,
        }),
      );
    }
    const { value: lifetime } = await rpc.getLatestBlockhash().send();
    const signed = await signTransactionMessageWithSigners(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(buyer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
        (m) => appendTransactionMessageInstructions(instructions, m),
      ),
    );
    const signature = getSignatureFromTransaction(signed);
    await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
    while ((await statusOf(signature)) === null);
    const [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
    return status!.slot;
  };
  const listing = (ata: Address) => rpc.getSignaturesForAddress(ata, { commitment: 'confirmed', limit: 100 }).send();

  // Detection's cursor starts at the head now.
  await scanDeposits(checkout, caip2);

  // ---- Throughput
  const deposits = [];
  for (let i = 0; i < DEPOSITS; i++) deposits.push(await newDeposit());
  let lastSlot = 0n;
  for (let i = 0; i < deposits.length; i += PER_TRANSACTION) {
    const slot = await pay(deposits.slice(i, i + PER_TRANSACTION).map((d) => d.owner));
    if (slot > lastSlot) lastSlot = slot;
  }
  // A scan reads the slots below the newest confirmed one (the local chain still adds to it): wait for the next.
  while ((await rpc.getSlot({ commitment: 'confirmed' }).send()) <= lastSlot);
  const baselineTimes: number[] = [];
  let baselineFound = 0;
  for (let run = 0; run < options.baselineRuns; run++) {
    const t0 = performance.now();
    let found = 0;
    // Eight at once, as the scanner lists them.
    for (let i = 0; i < deposits.length; i += 8) {
      const pages = await Promise.all(deposits.slice(i, i + 8).map((d) => listing(d.ata)));
      found += pages.reduce((n, page) => n + page.length, 0);
    }
    baselineTimes.push(performance.now() - t0);
    baselineFound = found;
  }
  const t0 = performance.now();
  const report = await scanDeposits(checkout, caip2);
  const scanMs = performance.now() - t0;
  let credited = 0;
  for (const d of deposits) if ((await findPayment(knex, d.paymentId))?.status === 'succeeded') credited++;
  if (baselineFound !== DEPOSITS || report.recorded !== DEPOSITS || credited !== DEPOSITS) {
    throw new Error(
      `Solana: listed ${baselineFound}, recorded ${report.recorded}, credited ${credited} of ${DEPOSITS}`,
    );
  }
  // Finalized, so they stop being watched and each latency scan reads only its own transfer.
  local.test.warpSlots(40n);
  await scanDeposits(checkout, caip2);

  // ---- Latency
  const detection: number[] = [];
  const baseline: number[] = [];
  for (let round = 0; round < options.latencyRounds; round++) {
    const d = await newDeposit();
    await pay([d.owner]);
    const landed = performance.now();
    const detect = (async () => {
      for (;;) {
        await scanDeposits(checkout, caip2);
        if ((await findPayment(knex, d.paymentId))?.status === 'succeeded') return performance.now() - landed;
      }
    })();
    const poll = (async () => {
      for (;;) if ((await listing(d.ata)).length > 0) return performance.now() - landed;
    })();
    const [det, base] = await Promise.all([detect, poll]);
    detection.push(det);
    baseline.push(base);
  }
  return { deposits: DEPOSITS, scanMs, baselineMs: median(baselineTimes), detection, baseline };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
