/** Accounts for HTTP tests, made through the accounts module as an operator would (the CLI uses the same calls). */
import { createKey, createMerchant, createPartner, type AccountsDeps } from '../../server/src/accounts/index.js';

export interface MerchantAccount {
  partnerId: string;
  merchantId: string;
  /** Secrets of a test key and a live key of the merchant's partner. */
  testKey: string;
  liveKey: string;
  testKeyId: string;
  liveKeyId: string;
}

export async function createMerchantAccount(
  deps: AccountsDeps,
  options: { feeConfig?: unknown; partnerId?: string; settlementAddresses?: Record<string, string> } = {},
): Promise<MerchantAccount> {
  const partnerId = options.partnerId ?? (await createPartner(deps, { name: 'Test partner' })).id;
  const merchant = await createMerchant(deps, {
    partnerId,
    name: 'Test merchant',
    feeConfig: options.feeConfig ?? null,
    settlementAddresses: options.settlementAddresses,
  });
  // Keys the operator allowed to refund (settlement/refundPolicy.ts): tests of refunds through claim links use them;
  // the refund policy's own tests make keys without it.
  const test = await createKey(deps, { kind: 'merchant', mode: 'test', partnerId, canRefund: true });
  const live = await createKey(deps, { kind: 'merchant', mode: 'live', partnerId, canRefund: true });
  return {
    partnerId,
    merchantId: merchant.id,
    testKey: test.secret,
    liveKey: live.secret,
    testKeyId: test.key.id,
    liveKeyId: live.key.id,
  };
}
