import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, withDevelopmentSecrets } from '@paygate/server';
import { isValidMnemonic } from '../../server/src/settlement/seed.js';

describe('settlement.config', () => {
  it('loadConfig: settlement defaults when nothing is set', () => {
    const s = loadConfig({}).settlement;
    assert.deepEqual(s, {
      depositSeed: null,
      treasury: {},
      payoutIntervalMs: 60_000,
      payoutMinimum: '0',
      reconcileIntervalMs: 300_000,
      reconcileReadiness: true,
      scanIntervalMs: 2000,
      refunds: {
        minimum: { fallback: '1', byAsset: {} },
        networkFee: { fallback: '0.1', byAsset: {} },
        ownerAbove: { fallback: '100', byAsset: {} },
        perPayment: 10,
      },
    });
  });

  it('loadConfig: payouts every minute in development (the local chain finalizes in about one), every hour elsewhere', () => {
    const staging = {
      PAYGATE_ENV: 'staging',
      PUBLIC_BASE_URL: 'https://pay.example.com',
      PAYGATE_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      PAYGATE_OPTION_SECRET: Buffer.alloc(32, 2).toString('base64'),
      PAYGATE_CHAINS: '/etc/paygate/chains.json',
    };
    assert.equal(loadConfig({}).settlement.payoutIntervalMs, 60_000);
    assert.equal(loadConfig(staging).settlement.payoutIntervalMs, 3_600_000);
    assert.equal(loadConfig({ ...staging, PAYGATE_PAYOUT_INTERVAL_S: '120' }).settlement.payoutIntervalMs, 120_000);
  });

  it('loadConfig: refund amounts are a default with exceptions per CAIP-19 asset; a malformed entry is refused by name', () => {
    const eth = 'eip155:1/slip44:60';
    const s = loadConfig({
      PAYGATE_REFUND_MINIMUM: `2.5, ${eth}=0.001`,
      PAYGATE_REFUND_NETWORK_FEE: `${eth}=0.0002`,
      PAYGATE_REFUND_LIMIT_PER_PAYMENT: '3',
    }).settlement.refunds;
    assert.deepEqual(s.minimum, { fallback: '2.5', byAsset: { [eth]: '0.001' } });
    assert.deepEqual(s.networkFee, { fallback: '0.1', byAsset: { [eth]: '0.0002' } });
    assert.equal(s.perPayment, 3);
    for (const [name, value] of [
      ['PAYGATE_REFUND_MINIMUM', '-1'],
      ['PAYGATE_REFUND_MINIMUM', '1,2'],
      ['PAYGATE_REFUND_NETWORK_FEE', 'eth=0.1'],
      ['PAYGATE_REFUND_OWNER_ABOVE', `${eth}=1,${eth}=2`],
      ['PAYGATE_REFUND_LIMIT_PER_PAYMENT', '0'],
    ] as const) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: unknown) => err instanceof ConfigError && err.variable === name,
        `${name}=${value}`,
      );
    }
  });

  it('loadConfig: a deposit seed with a bad checksum is refused, naming the variable and never echoing it', () => {
    const words = 'test test test test test test test test test test test test';
    assert.throws(
      () => loadConfig({ PAYGATE_DEPOSIT_SEED: words }),
      (err: unknown) =>
        err instanceof ConfigError && err.variable === 'PAYGATE_DEPOSIT_SEED' && !err.message.includes(words),
    );
  });

  it('loadConfig: treasury addresses are read per chain; a chain named twice or a malformed entry is refused', () => {
    const s = loadConfig({
      PAYGATE_TREASURY_ADDRESSES:
        'eip155:8453:0x70997970C51812dc3A010C7d01b50e0d17dc79C8, solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:FLvHWdhyi8YQeQeTWAyY4ncDBx5CzQ8EFGMd5HzowfHo',
    }).settlement;
    assert.deepEqual(s.treasury, {
      'eip155:8453': '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 'FLvHWdhyi8YQeQeTWAyY4ncDBx5CzQ8EFGMd5HzowfHo',
    });
    assert.throws(
      () => loadConfig({ PAYGATE_TREASURY_ADDRESSES: 'eip155:1:0x1,eip155:1:0x2' }),
      /PAYGATE_TREASURY_ADDRESSES names chain eip155:1 twice/,
    );
    assert.throws(() => loadConfig({ PAYGATE_TREASURY_ADDRESSES: '0x1234' }), /CAIP-10/);
  });

  it('loadConfig: the payout minimum is a non-negative decimal of whole units', () => {
    assert.equal(loadConfig({ PAYGATE_PAYOUT_MINIMUM: '10.5' }).settlement.payoutMinimum, '10.5');
    assert.throws(() => loadConfig({ PAYGATE_PAYOUT_MINIMUM: '-1' }), /PAYGATE_PAYOUT_MINIMUM/);
    assert.throws(() => loadConfig({ PAYGATE_PAYOUT_MINIMUM: '1e3' }), /PAYGATE_PAYOUT_MINIMUM/);
  });

  it('withDevelopmentSecrets: development generates a deposit seed once, private to the owner, and keeps it', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'paygate-data-'));
    const first = withDevelopmentSecrets(loadConfig({ PAYGATE_DATA_DIR: dataDir }));
    const second = withDevelopmentSecrets(loadConfig({ PAYGATE_DATA_DIR: dataDir }));
    assert.ok(first.settlement.depositSeed && isValidMnemonic(first.settlement.depositSeed));
    assert.equal(second.settlement.depositSeed, first.settlement.depositSeed);
    assert.equal(statSync(join(dataDir, 'dev-secrets.json')).mode & 0o777, 0o600);
  });

  it('withDevelopmentSecrets: a data dir from before settlement keeps its secrets and gains a seed', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'paygate-data-'));
    const old = {
      encryptionKey: Buffer.alloc(32, 7).toString('base64'),
      optionSecret: Buffer.alloc(32, 9).toString('base64'),
    };
    writeFileSync(join(dataDir, 'dev-secrets.json'), JSON.stringify(old), { mode: 0o600 });
    const config = withDevelopmentSecrets(loadConfig({ PAYGATE_DATA_DIR: dataDir }));
    assert.deepEqual(config.encryptionKeys[0]!.key, Buffer.alloc(32, 7));
    const stored = JSON.parse(readFileSync(join(dataDir, 'dev-secrets.json'), 'utf8')) as Record<string, string>;
    assert.equal(stored.encryptionKey, old.encryptionKey);
    assert.equal(stored.depositSeed, config.settlement.depositSeed);
  });

  it('withDevelopmentSecrets: outside development a missing seed stays missing (collected settlement off)', () => {
    const config = withDevelopmentSecrets(
      loadConfig({
        PAYGATE_ENV: 'staging',
        PUBLIC_BASE_URL: 'https://pay.example.com',
        PAYGATE_ENCRYPTION_KEY: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
        PAYGATE_OPTION_SECRET: Buffer.alloc(32, 2).toString('base64'),
        PAYGATE_CHAINS: 'testnet',
      }),
    );
    assert.equal(config.settlement.depositSeed, null);
  });
});
