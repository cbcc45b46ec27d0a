import assert from 'node:assert/strict';
import { ApiError } from '@paygate/server';
import { createMerchant, createPartner, type AccountsDeps, type NewMerchant } from '../../server/src/accounts/index.js';
import { findMerchant, findPartner } from '../../server/src/db/queries/accounts.js';
import { describeEachDatabase } from '../helpers/db.js';
import { testClock } from '../helpers/runtime.js';

const EVM = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const SOLANA_KEY = 'FLvHWdhyi8YQeQeTWAyY4ncDBx5CzQ8EFGMd5HzowfHo';
const FEE = {
  kind: 'base_plus_percent',
  base: { unit: 'iso4217/USD', value: '30' },
  percent: { numerator: '29', denominator: '1000' },
};

async function expectApiError(promise: Promise<unknown>, code: string, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof ApiError, `expected ApiError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (message) assert.match(err.message, message);
    return true;
  });
}

describeEachDatabase('accounts.merchants', (get) => {
  const clock = testClock();
  let deps: AccountsDeps;
  let partnerId: string;

  before(async () => {
    deps = { db: get().db, now: clock.now };
    partnerId = (await createPartner(deps, { name: '  Acme partner ' })).id;
  });

  const merchant = (over: Partial<NewMerchant> = {}): NewMerchant => ({ partnerId, name: 'Shop', ...over });

  it('creates a partner with a trimmed name', async () => {
    const partner = await findPartner(get().db.knex, partnerId);
    assert.match(partnerId, /^ptn_[0-9A-Za-z]{16}$/);
    assert.equal(partner?.name, 'Acme partner');
    assert.equal(partner?.created_at, clock.now());
  });

  it('refuses an empty partner name', async () => {
    await expectApiError(createPartner(deps, { name: '   ' }), 'params_validation');
  });

  it('creates a merchant with fee and settlement addresses, stored as given', async () => {
    const created = await createMerchant(
      deps,
      merchant({
        feeConfig: FEE,
        settlementAddresses: { 'eip155:8453': EVM, [SOLANA_MAINNET]: SOLANA_KEY },
      }),
    );
    assert.match(created.id, /^mer_[0-9A-Za-z]{16}$/);
    const stored = await findMerchant(get().db.knex, created.id);
    assert.deepEqual(stored, {
      id: created.id,
      partner_id: partnerId,
      name: 'Shop',
      icon_url: null,
      fee_config: FEE,
      settlement_addresses: { 'eip155:8453': EVM, [SOLANA_MAINNET]: SOLANA_KEY },
      collect_data: false,
      require_two_factor: false,
      settlement_mode: 'direct',
      created_at: clock.now(),
    });
  });

  it('a merchant without fee or addresses has none', async () => {
    const created = await createMerchant(deps, merchant());
    const stored = await findMerchant(get().db.knex, created.id);
    assert.equal(stored?.fee_config, null);
    assert.equal(stored?.icon_url, null);
    assert.deepEqual(stored?.settlement_addresses, {});
  });

  it('takes an explicit id once; the second is merchant_exists', async () => {
    const created = await createMerchant(deps, merchant({ id: 'mer_explicit01' }));
    assert.equal(created.id, 'mer_explicit01');
    await expectApiError(createMerchant(deps, merchant({ id: 'mer_explicit01', name: 'Other' })), 'merchant_exists');
    assert.equal((await findMerchant(get().db.knex, 'mer_explicit01'))?.name, 'Shop');
  });

  it('refuses an explicit id that cannot travel in a header', async () => {
    await expectApiError(createMerchant(deps, merchant({ id: 'mer 1' })), 'params_validation');
    await expectApiError(createMerchant(deps, merchant({ id: 'x'.repeat(41) })), 'params_validation');
  });

  it('an unknown partner is partner_not_found and writes nothing', async () => {
    await expectApiError(
      createMerchant(deps, merchant({ partnerId: 'ptn_nobody', id: 'mer_orphan' })),
      'partner_not_found',
    );
    assert.equal(await findMerchant(get().db.knex, 'mer_orphan'), null);
  });

  describe('fee configuration', () => {
    const bad: [string, unknown][] = [
      ['another kind', { ...FEE, kind: 'flat' }],
      ['a negative base', { ...FEE, base: { unit: 'iso4217/USD', value: '-1' } }],
      ['a decimal base', { ...FEE, base: { unit: 'iso4217/USD', value: '0.30' } }],
      ['a zero denominator', { ...FEE, percent: { numerator: '1', denominator: '0' } }],
      ['a percent over 100 %', { ...FEE, percent: { numerator: '1001', denominator: '1000' } }],
      ['an unknown currency', { ...FEE, base: { unit: 'iso4217/XYZ', value: '30' } }],
      ['a unit that is not ISO 4217', { ...FEE, base: { unit: 'USD', value: '30' } }],
      ['a missing percent', { kind: 'base_plus_percent', base: FEE.base }],
      ['a string', 'base_plus_percent'],
    ];
    for (const [what, feeConfig] of bad) {
      it(`refuses ${what}`, async () => {
        await expectApiError(createMerchant(deps, merchant({ feeConfig })), 'params_validation', /fee/i);
      });
    }

    it('accepts a zero base and a 100 % percent', async () => {
      const feeConfig = {
        ...FEE,
        base: { unit: 'iso4217/JPY', value: '0' },
        percent: { numerator: '1', denominator: '1' },
      };
      const created = await createMerchant(deps, merchant({ feeConfig }));
      assert.deepEqual(created.fee_config, feeConfig);
    });

    it('drops unknown fields instead of storing them', async () => {
      const created = await createMerchant(deps, merchant({ feeConfig: { ...FEE, extra: 'x' } }));
      assert.deepEqual((await findMerchant(get().db.knex, created.id))?.fee_config, FEE);
    });
  });

  describe('settlement addresses', () => {
    const bad: [string, Record<string, unknown>][] = [
      ['an unknown namespace', { 'cosmos:cosmoshub-4': 'cosmos1abc' }],
      ['a bip122 chain', { 'bip122:000000000019d6689c085ae165831e93': 'bc1q' }],
      ['an eip155 chain id with a leading zero', { 'eip155:01': EVM }],
      ['an eip155 chain id that is not a number', { 'eip155:base': EVM }],
      ['an EVM address that is too short', { 'eip155:1': EVM.slice(0, -1) }],
      ['an EVM address without 0x', { 'eip155:1': EVM.slice(2) }],
      ['an EVM address with a non-hex digit', { 'eip155:1': EVM.slice(0, -1) + 'g' }],
      ['a Solana reference of the wrong length', { 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvd': SOLANA_KEY }],
      ['a Solana address with a non-base58 character', { [SOLANA_MAINNET]: SOLANA_KEY.slice(0, -1) + '0' }],
      ['a Solana address that is too short', { [SOLANA_MAINNET]: SOLANA_KEY.slice(0, 31) }],
      ['a Solana address that overflows 32 bytes', { [SOLANA_MAINNET]: 'z'.repeat(44) }],
      ['a non-string address', { 'eip155:1': 42 }],
      ['a bare namespace', { eip155: EVM }],
    ];
    for (const [what, settlementAddresses] of bad) {
      it(`refuses ${what}`, async () => {
        await expectApiError(
          createMerchant(deps, merchant({ settlementAddresses: settlementAddresses as Record<string, string> })),
          'params_validation',
        );
      });
    }

    it('accepts the local chains and lowercase EVM addresses', async () => {
      const settlementAddresses = {
        'eip155:31337': EVM.toLowerCase(),
        'solana:5zpHnbVUWuvEe4H4uj3uu3YZCdv5AVuj': '9jchmG2CGk2ppb7mAF2azpXrrJQq6FWBApBnfWoUovgU',
        [SOLANA_MAINNET]: '11111111111111111111111111111111',
      };
      const created = await createMerchant(deps, merchant({ settlementAddresses }));
      assert.deepEqual(created.settlement_addresses, settlementAddresses);
    });
  });

  it('refuses an icon URL: a logo is uploaded, since the checkout shows no image from another origin', async () => {
    await expectApiError(createMerchant(deps, merchant({ iconUrl: 'javascript:alert(1)' })), 'params_validation');
    await expectApiError(
      createMerchant(deps, merchant({ iconUrl: 'https://shop.example/icon.png' })),
      'params_validation',
    );
  });
});
