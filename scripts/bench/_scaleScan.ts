/**
 * The scale benchmark's deposit scan (issue 36): one `scanDeposits` round of the real detection over 20,000 watched
 * deposit addresses of open collected payments, against the run's local anvil, with `transfers` of them paid in the
 * blocks the round reads, beside a round with nothing new. The addresses are derived by the server's own settlement
 * key (as checkout gives them out) and the payments made by the lifecycle's group commit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createWalletClient, encodeFunctionData, erc20Abi, getAddress, http, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createRuntime, type Runtime } from '@paygate/server';
import { startChains } from '../../server/src/chains/index.js';
import { fundAccount } from '../../server/src/chains/faucet.js';
import { allocateDerivationIndex, insertDepositAddress } from '../../server/src/db/queries/depositAccounts.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { scanDeposits } from '../../server/src/settlement/collected/detection.js';
import { testConfig } from '../../test/helpers/config.js';
import { createMerchantAccount } from '../../test/helpers/fixtures.js';

export interface ScanFigures {
  watched: number;
  transfers: number;
  /** One round that finds and credits `transfers` payments. */
  roundMs: number;
  /** One round with no new transfer: the steady cost of watching. */
  idleRoundMs: number;
  recorded: number;
}

const AMOUNT = 12_500_000n;

export async function measureScan(
  databaseUrl: string | null,
  watched: number,
  transfers: number,
  log: (line: string) => void = () => {},
): Promise<ScanFigures> {
  const chains = await startChains({ chains: 'local', chainEnv: {} });
  const dir = mkdtempSync(join(tmpdir(), 'paygate-scale-scan-'));
  let runtime: Runtime | null = null;
  try {
    const local = chains.local!.evm;
    const caip2 = local.config.caip2;
    runtime = await createRuntime({
      config: testConfig({ DATABASE_URL: databaseUrl ?? `sqlite:${join(dir, 'paygate.sqlite')}` }),
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
    await scanDeposits(checkout, caip2);

    const addresses: Address[] = [];
    const BATCH = 200;
    for (let i = 0; i < watched; i += BATCH) {
      const payments = await Promise.all(
        Array.from({ length: Math.min(BATCH, watched - i) }, () =>
          createPayment(rt, {
            merchantId: account.merchantId,
            live: false,
            referenceId: 'scan',
            amount: { unit: 'iso4217/USD', value: '1250' },
            expiresAt: Date.now() + 6 * 3600_000,
            successUrl: null,
            errorUrl: null,
          }),
        ),
      );
      for (const payment of payments) {
        const index = await allocateDerivationIndex(knex, payment.id, Date.now());
        const address = getAddress(await settlement.keyAddress(caip2, { role: 'deposit', index }));
        await insertDepositAddress(knex, {
          chain: caip2,
          address,
          paymentId: payment.id,
          derivationIndex: index,
          createdAt: Date.now(),
        });
        addresses.push(address);
      }
      if ((i / BATCH) % 20 === 0) log(`scan: ${addresses.length} deposit addresses`);
    }

    const idle0 = performance.now();
    await scanDeposits(checkout, caip2);
    const idleRoundMs = performance.now() - idle0;

    const buyer = privateKeyToAccount(generatePrivateKey());
    const wallet = createWalletClient({
      account: buyer,
      chain: local.clients.chain,
      transport: http(local.config.rpcUrl),
    });
    const caip10 = `${caip2}:${buyer.address}`;
    await fundAccount(chains.local!, { account: caip10, asset: 'native', amount: (10n ** 20n).toString() });
    await fundAccount(chains.local!, {
      account: caip10,
      asset: `${caip2}/erc20:${local.testUsd}`,
      amount: (AMOUNT * BigInt(transfers)).toString(),
    });
    let nonce = await local.clients.public.getTransactionCount({ address: buyer.address });
    const send = (to: Address): Promise<Hex> =>
      wallet.sendTransaction({
        to: local.testUsd,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, AMOUNT] }),
        nonce: nonce++,
        gas: 100_000n,
      });
    await local.test.setAutomine(false);
    try {
      // Spread over the watched set: every 1 in watched/transfers addresses is paid.
      for (let i = 0; i < transfers; i++) await send(addresses[Math.floor((i * watched) / transfers)]!);
      await local.test.mine({ blocks: 1 });
    } finally {
      await local.test.setAutomine(true);
    }
    const t0 = performance.now();
    const report = await scanDeposits(checkout, caip2);
    const roundMs = performance.now() - t0;
    return { watched, transfers, roundMs, idleRoundMs, recorded: report.recorded };
  } finally {
    await runtime?.close();
    await chains.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
