/**
 * `npm run bench -- settlement`: deposit detection (server/src/settlement/collected/detection.ts over the EVM `DepositScan`) on
 * a local anvil, against a baseline of bare `eth_getLogs` polling of the same addresses in the same run.
 *
 * Throughput: BENCH_DEPOSITS plain TUSD transfers to as many collected payments' deposit addresses, mined
 * BENCH_PER_BLOCK to a block; then one scan records and credits them all (every payment reaches `succeeded`, with its
 * ledger rows), timed, beside the baseline's `eth_getLogs` of the same block range and addresses (the least any
 * detection must do), timed BENCH_BASELINE_RUNS times (median).
 *
 * Latency (transfer mined → payment credited): BENCH_LATENCY_ROUNDS single transfers; from the moment the node holds
 * the receipt, detection scans back to back until the payment is `succeeded`, while the baseline polls
 * `eth_getLogs` back to back from the transfer's block until the log appears; both run at once, so they share the
 * machine. In production a scan runs every PAYGATE_DEPOSIT_SCAN_INTERVAL_MS (2 s by default), which adds up to that
 * interval, and a chain's confirmations add their blocks.
 *
 * Env: BENCH_DEPOSITS (200), BENCH_PER_BLOCK (50), BENCH_BASELINE_RUNS (5), BENCH_LATENCY_ROUNDS (20),
 * BENCH_WRITE=0 (print only, leave BENCHMARKS.md alone).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import {
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  http,
  parseAbiItem,
  type Address,
  type Hex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createRuntime, type Runtime } from '@paygate/server';
import { startChains } from '../../server/src/chains/index.js';
import { fundAccount } from '../../server/src/chains/faucet.js';
import { allocateDerivationIndex, insertDepositAddress } from '../../server/src/db/queries/depositAccounts.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { scanDeposits } from '../../server/src/settlement/collected/detection.js';
import { testConfig } from '../../test/helpers/config.js';
import { createMerchantAccount } from '../../test/helpers/fixtures.js';
import { machineLine, writeSection } from './_report.js';
import { benchSolanaDetection } from './_settlementSolana.js';

const DEPOSITS = Number(process.env.BENCH_DEPOSITS ?? 200);
const PER_BLOCK = Number(process.env.BENCH_PER_BLOCK ?? 50);
const BASELINE_RUNS = Number(process.env.BENCH_BASELINE_RUNS ?? 5);
const LATENCY_ROUNDS = Number(process.env.BENCH_LATENCY_ROUNDS ?? 20);
const WRITE = process.env.BENCH_WRITE !== '0';
const AMOUNT = 12_500_000n;
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const ms = (v: number) => `${v.toFixed(v < 10 ? 1 : 0)} ms`;

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const started = performance.now();
  const chains = await startChains({ chains: 'local', chainEnv: {} });
  const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-settlement-'));
  let runtime: Runtime | null = null;
  try {
    const local = chains.local!.evm;
    const client = local.clients.public;
    const caip2 = local.config.caip2;
    const tusd = `${caip2}/erc20:${local.testUsd}`;
    runtime = await createRuntime({
      config: testConfig({ DATABASE_URL: `sqlite:${join(dir, 'paygate.sqlite')}` }),
      logger: pino({ level: 'silent' }),
      chains,
    });
    const rt = runtime;
    const checkout = rt.checkout!;
    const knex = rt.db.knex;
    const account = await createMerchantAccount(rt, {
      settlementAddresses: { [caip2]: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' },
    });
    await knex('merchants').where({ id: account.merchantId }).update({ settlement_mode: 'collected' });
    const settlement = checkout.adapters.find((a) => a.isChainId(caip2))!.settlement!;

    const newDeposit = async (): Promise<{ paymentId: string; address: Address }> => {
      const payment = await createPayment(rt, {
        merchantId: account.merchantId,
        live: false,
        referenceId: 'bench',
        amount: { unit: 'iso4217/USD', value: '1250' },
        expiresAt: Date.now() + 3600_000,
        successUrl: null,
        errorUrl: null,
      });
      const index = await allocateDerivationIndex(knex, payment.id, Date.now());
      const address = getAddress(await settlement.keyAddress(caip2, { role: 'deposit', index }));
      await insertDepositAddress(knex, {
        chain: caip2,
        address: address,
        paymentId: payment.id,
        derivationIndex: index,
        createdAt: Date.now(),
      });
      return { paymentId: payment.id, address };
    };

    // One buyer sends every transfer, at explicit nonces, so a block can hold many of them.
    const buyer = privateKeyToAccount(generatePrivateKey());
    const wallet = createWalletClient({
      account: buyer,
      chain: local.clients.chain,
      transport: http(local.config.rpcUrl),
    });
    const caip10 = `${caip2}:${buyer.address}`;
    await fundAccount(chains.local!, { account: caip10, asset: 'native', amount: (10n ** 20n).toString() });
    const funds = AMOUNT * BigInt(DEPOSITS + LATENCY_ROUNDS);
    await fundAccount(chains.local!, { account: caip10, asset: tusd, amount: funds.toString() });
    let nonce = await client.getTransactionCount({ address: buyer.address });
    const send = (to: Address): Promise<Hex> =>
      wallet.sendTransaction({
        to: local.testUsd,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, AMOUNT] }),
        nonce: nonce++,
        gas: 100_000n,
      });

    // Detection starts at the head now.
    await scanDeposits(checkout, caip2);
    const fromBlock = (await client.getBlockNumber({ cacheTime: 0 })) + 1n;

    // ---- Throughput
    const deposits = [];
    for (let i = 0; i < DEPOSITS; i++) deposits.push(await newDeposit());
    await local.test.setAutomine(false);
    try {
      for (let i = 0; i < deposits.length; i += PER_BLOCK) {
        for (const d of deposits.slice(i, i + PER_BLOCK)) await send(d.address);
        await local.test.mine({ blocks: 1 });
      }
    } finally {
      await local.test.setAutomine(true);
    }
    const toBlock = await client.getBlockNumber({ cacheTime: 0 });
    const addresses = deposits.map((d) => d.address);
    const baselineTimes: number[] = [];
    let baselineFound = 0;
    for (let run = 0; run < BASELINE_RUNS; run++) {
      const t0 = performance.now();
      let found = 0;
      for (let i = 0; i < addresses.length; i += 500) {
        const logs = await client.getLogs({
          address: local.testUsd,
          event: transferEvent,
          args: { to: addresses.slice(i, i + 500) },
          fromBlock,
          toBlock,
        });
        found += logs.length;
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
      throw new Error(`found ${baselineFound} logs, recorded ${report.recorded}, credited ${credited} of ${DEPOSITS}`);
    }
    const baselineMs = quantile(baselineTimes, 0.5);

    // The throughput's transfers become final and stop being watched, so each latency scan reads only its own.
    await local.test.mine({ blocks: 70 });
    await scanDeposits(checkout, caip2);

    // ---- Latency
    const detection: number[] = [];
    const baseline: number[] = [];
    for (let round = 0; round < LATENCY_ROUNDS; round++) {
      const d = await newDeposit();
      const hash = await send(d.address);
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 5 });
      const mined = performance.now();
      const detect = (async () => {
        for (;;) {
          await scanDeposits(checkout, caip2);
          if ((await findPayment(knex, d.paymentId))?.status === 'succeeded') return performance.now() - mined;
        }
      })();
      const poll = (async () => {
        for (;;) {
          const head = await client.getBlockNumber({ cacheTime: 0 });
          const logs = await client.getLogs({
            address: local.testUsd,
            event: transferEvent,
            args: { to: [d.address] },
            fromBlock: receipt.blockNumber,
            toBlock: head,
          });
          if (logs.length > 0) return performance.now() - mined;
        }
      })();
      const [det, base] = await Promise.all([detect, poll]);
      detection.push(det);
      baseline.push(base);
    }

    const solana = await benchSolanaDetection(rt, chains, account.merchantId, {
      baselineRuns: BASELINE_RUNS,
      latencyRounds: LATENCY_ROUNDS,
    });

    const loadAfter = loadavg();
    const seconds = Math.round((performance.now() - started) / 1000);
    const rate = (n: number, t: number) => `${Math.round((n * 1000) / t)}/s`;
    const markdown = `
## settlement

${machineLine()} · anvil (one block per call to \`anvil_mine\`), SQLite file, detection in this process · load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after · ${seconds} s in all

### Throughput (${DEPOSITS} deposits, ${PER_BLOCK} to a block, ${Number(toBlock - fromBlock + 1n)} blocks)

| | time | deposits per second | / baseline |
|---|---|---|---|
| detection: one \`scanDeposits\` (logs, block times, each transfer's status, payment credited: two transitions, outbox events, ledger rows) | ${ms(scanMs)} | ${rate(DEPOSITS, scanMs)} | ${(scanMs / baselineMs).toFixed(1)}× the time |
| baseline: bare \`eth_getLogs\` of the same range and addresses (median of ${BASELINE_RUNS}) | ${ms(baselineMs)} | ${rate(DEPOSITS, baselineMs)} | 1× |

### Latency, transfer mined → credited (${LATENCY_ROUNDS} transfers, one at a time)

| | p50 | p95 | max |
|---|---|---|---|
| detection, scanning back to back (payment \`succeeded\`) | ${ms(quantile(detection, 0.5))} | ${ms(quantile(detection, 0.95))} | ${ms(Math.max(...detection))} |
| baseline, \`eth_getLogs\` polled back to back (log seen) | ${ms(quantile(baseline, 0.5))} | ${ms(quantile(baseline, 0.95))} | ${ms(Math.max(...baseline))} |
| detection p50 / baseline p50 | ${(quantile(detection, 0.5) / quantile(baseline, 0.5)).toFixed(1)}× | | |

"Mined" is when the node answers the receipt; both loops start then and run at once. Detection's cost per deposit is
mostly the status read of each watched transfer (a receipt and a block) and the crediting transaction; the baseline
only finds the log. Each latency scan also looks again at the earlier rounds' transfers, still watched until the
chain's \`finalized\` block passes them (64 blocks on anvil), as a production scan does. In production a scan runs
every \`PAYGATE_DEPOSIT_SCAN_INTERVAL_MS\` (2 s by default), which adds up to that interval to the latency, and a
chain's required confirmations add their blocks.

### Solana: throughput (${solana.deposits} deposits, five to a transaction) and latency (${LATENCY_ROUNDS} transfers), local Solana chain

| | time / p50 | p95 | deposits per second | / baseline |
|---|---|---|---|---|
| detection: one \`scanDeposits\` (each deposit token account listed, each transaction read, each transfer's status, payment credited) | ${ms(solana.scanMs)} | | ${rate(solana.deposits, solana.scanMs)} | ${(solana.scanMs / solana.baselineMs).toFixed(1)}× the time |
| baseline: bare \`getSignaturesForAddress\` of every deposit token account, eight at once (median of ${BASELINE_RUNS}) | ${ms(solana.baselineMs)} | | ${rate(solana.deposits, solana.baselineMs)} | 1× |
| latency, detection scanning back to back (payment \`succeeded\`) | ${ms(quantile(solana.detection, 0.5))} | ${ms(quantile(solana.detection, 0.95))} | | ${(quantile(solana.detection, 0.5) / quantile(solana.baseline, 0.5)).toFixed(1)}× |
| latency, baseline \`getSignaturesForAddress\` polled back to back (signature listed) | ${ms(quantile(solana.baseline, 0.5))} | ${ms(quantile(solana.baseline, 0.95))} | | 1× |

"Landed" is when the node reports the transaction confirmed. A Solana scan reads the slots below the newest confirmed
one (a node may still add to it), so detection waits for the next slot (400 ms on the local chain) where the baseline
lists the signature at once; the baseline reads no transaction, so it knows neither the amount nor the sender.
`;
    console.log(markdown);
    if (WRITE) writeSection('settlement', markdown);
  } finally {
    await runtime?.close();
    await chains.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
