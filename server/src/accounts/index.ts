export {
  authenticateKey,
  createKey,
  listKeys,
  revokeKey,
  rotateKey,
  type CreatedKey,
  type KeyInfo,
  type NewKey,
} from './apiKeys.js';
export {
  bootstrapDevelopment,
  createDemoAccounts,
  DEMO_FEE_CONFIG,
  DEMO_SETTLEMENT_ADDRESSES,
  type DemoCredentials,
  type TestCredentials,
} from './bootstrap.js';
export type { AccountsDeps } from './accountsDeps.js';
export { hashKey, mintKey, parseKey, DISPLAY_PREFIX_LENGTH, type KeyKind, type Mode } from './keys.js';
export {
  createMerchant,
  createPartner,
  parseSettlementAddresses,
  requirePartner,
  validateFeeConfig,
  type NewMerchant,
  type NewPartner,
} from './merchants.js';
