import assert from 'node:assert/strict';
import { computeFee, divRoundHalfUp, parseFeeConfig } from '../../server/src/payments/fees.js';

const config = parseFeeConfig({
  kind: 'base_plus_percent',
  base: { unit: 'iso4217/USD', value: '30' },
  percent: { numerator: '29', denominator: '1000' },
});
const usdc = (value: string) => ({
  unit: 'caip19/eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  value,
});

describe('payments.fees', () => {
  it('rounds the percent part half up at the minor unit', () => {
    assert.equal(divRoundHalfUp(1n, 2n), 1n, '0.5 rounds up');
    assert.equal(divRoundHalfUp(49n, 100n), 0n, '0.49 rounds down');
    assert.equal(divRoundHalfUp(51n, 100n), 1n);
    assert.equal(divRoundHalfUp(0n, 7n), 0n);
    assert.equal(divRoundHalfUp(3n, 2n), 2n, '1.5 rounds up');
    assert.equal(divRoundHalfUp(5n, 2n), 3n, '2.5 rounds up (not to even)');
  });

  it('computes base plus percent exactly, at the rounding edges', () => {
    // 2.9 % of 1 724 = 49.996 → 50; of 1 707 = 49.503 → 50; of 1 706 = 49.474 → 49
    assert.equal(computeFee(config, usdc('1724'), 30n).percent_amount.value, '50');
    assert.equal(computeFee(config, usdc('1707'), 30n).percent_amount.value, '50');
    assert.equal(computeFee(config, usdc('1706'), 30n).percent_amount.value, '49');
    const fee = computeFee(config, usdc('12500000'), 300000n);
    assert.deepEqual(fee, {
      kind: 'base_plus_percent',
      base_amount: usdc('300000'),
      percent: { numerator: '29', denominator: '1000' },
      percent_amount: usdc('362500'),
      total_amount: usdc('662500'),
    });
  });

  it('never floats: huge amounts stay exact', () => {
    const big = '123456789012345678901234567890';
    const fee = computeFee(config, usdc(big), 0n);
    assert.equal(fee.percent_amount.value, ((BigInt(big) * 29n * 2n + 1000n) / 2000n).toString());
  });

  it('caps the total at the amount', () => {
    const fee = computeFee(config, usdc('20'), 30n);
    assert.equal(fee.total_amount.value, '20');
  });

  it('refuses a malformed configuration', () => {
    for (const bad of [
      null,
      { kind: 'flat', base: { unit: 'iso4217/USD', value: '1' }, percent: { numerator: '1', denominator: '100' } },
      {
        kind: 'base_plus_percent',
        base: { unit: 'iso4217/USD', value: '-1' },
        percent: { numerator: '1', denominator: '100' },
      },
      {
        kind: 'base_plus_percent',
        base: { unit: 'iso4217/USD', value: '1' },
        percent: { numerator: '1', denominator: '0' },
      },
      {
        kind: 'base_plus_percent',
        base: { unit: 'iso4217/USD', value: '1' },
        percent: { numerator: '0.5', denominator: '100' },
      },
    ]) {
      assert.throws(() => parseFeeConfig(bad), /fee configuration/);
    }
  });
});
