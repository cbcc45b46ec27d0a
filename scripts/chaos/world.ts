/**
 * What a chaos run stands on (docs/decisions.md §27.15): the run's anvil and local Solana chain, each reached by the
 * gateway's processes only through two fault proxies (test/helpers/faultProxy.ts) as two RPC endpoints of one chain;
 * a PostgreSQL database; an operator's chain file and environment for the children; and an in-process runtime over
 * the same database and the chains read directly, which creates the accounts and checks the invariants at the end
 * but never runs a job.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { generateKeyPairSigner, getAddressEncoder, getBase58Decoder } from '@solana/kit';
import { getAddress } from 'viem';
import { localSolanaPrivateKey } from '@paygate/devchain';
import { createRuntime, migrateDatabase, type Database, type Runtime } from '@paygate/server';
import { createKey } from '../../server/src/accounts/index.js';
import { updateMerchantSettings } from '../../server/src/accounts/merchants.js';
import type { Chains } from '../../server/src/chains/index.js';
import { newMnemonic } from '../../server/src/settlement/seed.js';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { sharedChains } from '../../test/helpers/chain.js';
import { testConfig } from '../../test/helpers/config.js';
import { startFaultProxy, type FaultProxy } from '../../test/helpers/faultProxy.js';
import { createMerchantAccount, type MerchantAccount } from '../../test/helpers/fixtures.js';
import { startReceiver, type Receiver } from '../../test/helpers/receiver.js';

/** Every payment pays a fee, so a fee counted twice or never shows in the ledger. */
const FEE = {
  kind: 'base_plus_percent',
  base: { unit: 'iso4217/USD', value: '30' },
  percent: { numerator: '29', denominator: '1000' },
};

export interface ChaosMerchant {
  mode: 'direct' | 'collected';
  account: MerchantAccount;
  /** Where its direct payments and payouts go, per chain. */
  payTo: { evm: string; solana: string };
}

export interface ChaosWorld {
  /** The chains read directly (the truth); the children reach them through `proxies`. */
  chains: Chains;
  proxies: { chain: 'evm' | 'solana'; proxy: FaultProxy }[];
  env: Record<string, string>;
  checker: Runtime;
  merchants: ChaosMerchant[];
  /** A live wallet key for the options, fetch and confirm calls of the buyers. */
  walletKey: string;
  receiver: Receiver;
  close(): Promise<void>;
}

/** The local chains as a mainnet: live payments, settled directly or collected, paid out and refunded. */
function liveChains(chains: Chains): Chains {
  return {
    ...chains,
    evm: chains.evm.map((c) => ({ ...c, config: { ...c.config, mode: 'live' as const } })),
    solana: chains.solana.map((c) => ({ ...c, config: { ...c.config, mode: 'live' as const } })),
  };
}

/** `migrated`: called once the database is migrated and the children's environment is known, before the accounts. */
export async function startChaosWorld(
  database: { url: string; db: Database },
  migrated: (env: Record<string, string>) => void = () => undefined,
): Promise<ChaosWorld> {
  const chains = liveChains(await sharedChains());
  const local = chains.local!;
  const evm = chains.evm[0]!.config;
  const solana = chains.solana[0]!.config;
  const proxies = [
    { chain: 'evm' as const, proxy: await startFaultProxy(local.evm.config.rpcUrl) },
    { chain: 'evm' as const, proxy: await startFaultProxy(local.evm.config.rpcUrl) },
    { chain: 'solana' as const, proxy: await startFaultProxy(local.solana.rpcUrl) },
    { chain: 'solana' as const, proxy: await startFaultProxy(local.solana.rpcUrl) },
  ];
  const endpoints = (chain: 'evm' | 'solana') =>
    proxies.filter((p) => p.chain === chain).map((p) => ({ url: p.proxy.url, timeoutMs: 2_000, weight: 1 }));

  const dir = mkdtempSync(join(tmpdir(), 'paygate-chaos-'));
  const chainFile = join(dir, 'chains.json');
  writeFileSync(
    chainFile,
    JSON.stringify({
      chains: [
        {
          caip2: evm.caip2,
          name: evm.name,
          mode: 'live',
          confirmations: evm.confirmations,
          rpcUrls: endpoints('evm'),
          relayerKey: '${PAYGATE_RELAYER_KEY}',
          assets: evm.assets,
        },
      ],
      solanaChains: [
        {
          caip2: solana.caip2,
          name: solana.name,
          mode: 'live',
          rpcUrls: endpoints('solana'),
          commitment: solana.commitment,
          explorerTxUrl: null,
          feePayerKey: '${PAYGATE_SOLANA_FEE_PAYER_KEY}',
          assets: solana.assets,
        },
      ],
    }),
  );
  const feePayer = new Uint8Array([
    ...localSolanaPrivateKey('feePayer'),
    ...getAddressEncoder().encode(local.solana.feePayer.address),
  ]);
  const secrets = {
    PAYGATE_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
    PAYGATE_OPTION_SECRET: randomBytes(32).toString('base64'),
    PAYGATE_DEPOSIT_SEED: newMnemonic(),
    // Refunds of any size, with no network fee: the run's amounts are a few TUSD.
    PAYGATE_REFUND_MINIMUM: '0',
    PAYGATE_REFUND_NETWORK_FEE: '0',
    PAYGATE_RATE_LIMIT_RPS: '1000000',
    PAYGATE_RATE_LIMIT_BURST: '1000000',
  };
  const env: Record<string, string> = {
    ...secrets,
    DATABASE_URL: database.url,
    PORT: '0',
    // Error lines only: the run counts them (an internal error answered to a caller is a finding).
    LOG_LEVEL: 'error',
    PAYGATE_CHAINS: chainFile,
    PAYGATE_RELAYER_KEY: evm.relayerKey!,
    PAYGATE_SOLANA_FEE_PAYER_KEY: getBase58Decoder().decode(feePayer),
    // Payouts every 15 s and scans every second: a short run still sweeps, pays out and refunds.
    PAYGATE_PAYOUT_INTERVAL_S: '15',
    PAYGATE_DEPOSIT_SCAN_INTERVAL_MS: '1000',
  };

  await migrateDatabase(database.db);
  migrated(env);
  const checker = await createRuntime({
    config: testConfig(secrets),
    db: database.db,
    migrate: false,
    logger: pino({ level: 'silent' }),
    chains,
  });
  const receiver = await startReceiver();
  const merchants: ChaosMerchant[] = [];
  for (const mode of ['direct', 'collected'] as const) {
    const payTo = {
      evm: getAddress(`0x${randomBytes(20).toString('hex')}`),
      solana: (await generateKeyPairSigner()).address as string,
    };
    const account = await createMerchantAccount(checker, {
      feeConfig: FEE,
      settlementAddresses: { [evm.caip2]: payTo.evm, [solana.caip2]: payTo.solana },
    });
    await updateMerchantSettings(checker, account.merchantId, { settlementMode: mode }, { depositSeed: true });
    // Live events cannot reach a loopback receiver (webhook URLs of live mode must be public https): the run's
    // test-mode payments carry the deliveries through the same processes and kills.
    await createEndpoint(checker, account.merchantId, 'test', { url: `${receiver.url}/${mode}` });
    merchants.push({ mode, account, payTo });
  }
  const walletKey = (await createKey(checker, { kind: 'wallet', mode: 'live', label: 'chaos wallet' })).secret;
  return {
    chains,
    proxies,
    env,
    checker,
    merchants,
    walletKey,
    receiver,
    async close() {
      await checker.close();
      await receiver.close();
      for (const p of proxies) await p.proxy.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
