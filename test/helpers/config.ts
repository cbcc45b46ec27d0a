import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '@paygate/server';
import { newMnemonic } from '../../server/src/settlement/seed.js';

/** A complete test configuration; nothing is read from the developer's environment. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    PAYGATE_ENV: 'development',
    PORT: '0',
    LOG_LEVEL: 'silent',
    PAYGATE_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
    PAYGATE_OPTION_SECRET: randomBytes(32).toString('base64'),
    // A seed of its own per configuration: deposit addresses of tests sharing one chain never meet.
    PAYGATE_DEPOSIT_SEED: newMnemonic(),
    DATABASE_URL: 'sqlite::memory:',
    // Expiry tests move the clock just past expiresAt; gateway tests that need the late-confirm grace set it.
    PAYGATE_LATE_CONFIRM_GRACE_S: '0',
    // Dashboard password hashes at scrypt N=2^10: the production cost (2^17, 128 MiB) would dominate sign-in tests.
    // Production refuses a cost below 2^15, so a production configuration gets the lowest it accepts.
    // No refund minimum or network fee: tests of refund amounts and balances read exactly; the refund policy's own
    // tests (settlement.refundPolicy.*) set them.
    PAYGATE_REFUND_MINIMUM: '0',
    PAYGATE_REFUND_NETWORK_FEE: '0',
    // Payouts on the production default's hour: a test plans its payouts itself (development's default is a minute).
    PAYGATE_PAYOUT_INTERVAL_S: '3600',
    PAYGATE_PASSWORD_COST: overrides.PAYGATE_ENV === 'production' ? '15' : '10',
    ...overrides,
  });
}
