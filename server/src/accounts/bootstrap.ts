/**
 * The demo accounts: one partner, one merchant paid out on the local chains, and a key of every kind, so a fresh
 * install can take a payment without reading the admin manual first.
 */
import type { Knex } from 'knex';
import { demoSettlementAddresses } from '../chains/adapters.js';
import type { PaygateEnv } from '../config.js';
import { isEmbedded } from '../db/dialect.js';
import { hasAnyPartner } from '../db/queries/accounts.js';
import type { BasePlusPercentConfig } from '../payments/fees.js';
import { createKey } from './apiKeys.js';
import type { AccountsDeps } from './accountsDeps.js';
import type { Mode } from './keys.js';
import { createMerchant, createPartner } from './merchants.js';

export const DEMO_SETTLEMENT_ADDRESSES: Record<string, string> = demoSettlementAddresses;

export const DEMO_FEE_CONFIG: BasePlusPercentConfig = {
  kind: 'base_plus_percent',
  base: { unit: 'iso4217/USD', value: '30' },
  percent: { numerator: '29', denominator: '1000' },
};

export interface TestCredentials {
  partnerId: string;
  merchantId: string;
  merchantApiKey: string;
  walletApiKey: string;
  appId: string;
}

export interface DemoCredentials extends TestCredentials {
  merchantApiKeyLive: string;
  walletApiKeyLive: string;
  appIdLive: string;
}

async function createDemoMerchant(deps: AccountsDeps, trx: Knex.Transaction) {
  const partner = await createPartner(deps, { name: 'Demo partner' }, trx);
  const merchant = await createMerchant(
    deps,
    {
      partnerId: partner.id,
      name: 'Demo merchant',
      feeConfig: DEMO_FEE_CONFIG,
      settlementAddresses: DEMO_SETTLEMENT_ADDRESSES,
    },
    trx,
  );
  return { partnerId: partner.id, merchantId: merchant.id };
}

async function createDemoKeys(deps: AccountsDeps, trx: Knex.Transaction, partnerId: string, mode: Mode) {
  const label = `Demo (${mode})`;
  const merchant = await createKey(deps, { kind: 'merchant', mode, partnerId, label }, trx);
  // Wallet keys and apps belong to wallet providers, not to the merchant's partner.
  const wallet = await createKey(deps, { kind: 'wallet', mode, label }, trx);
  const app = await createKey(deps, { kind: 'app', mode, label }, trx);
  return { merchantApiKey: merchant.secret, walletApiKey: wallet.secret, appId: app.secret };
}

/** `paygate admin bootstrap`: demo accounts with test and live credentials, all written or none. */
export async function createDemoAccounts(deps: AccountsDeps): Promise<DemoCredentials> {
  return deps.db.knex.transaction(async (trx) => {
    const { partnerId, merchantId } = await createDemoMerchant(deps, trx);
    const test = await createDemoKeys(deps, trx, partnerId, 'test');
    const live = await createDemoKeys(deps, trx, partnerId, 'live');
    return {
      partnerId,
      merchantId,
      merchantApiKey: test.merchantApiKey,
      merchantApiKeyLive: live.merchantApiKey,
      walletApiKey: test.walletApiKey,
      walletApiKeyLive: live.walletApiKey,
      appId: test.appId,
      appIdLive: live.appId,
    };
  });
}

/**
 * The first `paygate start` of a development install on the embedded database creates the demo accounts with
 * test credentials only: a server must never mint live keys on its own, and a PostgreSQL database is someone's
 * shared installation, not a scratch file. Returns null when there is nothing to do.
 */
export async function bootstrapDevelopment(deps: AccountsDeps, env: PaygateEnv): Promise<TestCredentials | null> {
  if (env !== 'development' || !isEmbedded(deps.db)) return null;
  return deps.db.knex.transaction(async (trx) => {
    if (await hasAnyPartner(trx)) return null;
    const ids = await createDemoMerchant(deps, trx);
    return { ...ids, ...(await createDemoKeys(deps, trx, ids.partnerId, 'test')) };
  });
}
