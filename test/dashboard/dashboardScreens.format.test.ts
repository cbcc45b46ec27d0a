/**
 * The screens' formatting, outside the browser: exact money from minor-unit strings (beyond 2^53), currency digits,
 * rates, the local-day bounds of the payments' date filters, and the export's file name from Content-Disposition.
 */
import assert from 'node:assert/strict';
import { fileNameOf } from '../../web/src/dashboard/screens/parts/fileName.js';
import {
  formatMoney,
  formatTokenAmount,
  formatRate,
  localMidnight,
  localMidnightAfter,
  toDecimal,
} from '../../web/src/dashboard/screens/parts/format.js';

describe('dashboardScreens.format', () => {
  it('formats minor units exactly, with each currency’s digits, beyond 2^53', () => {
    assert.equal(toDecimal('9007199254740993', 2), '90071992547409.93');
    assert.equal(toDecimal('5', 2), '0.05');
    assert.equal(toDecimal('-5', 2), '-0.05');
    assert.equal(formatMoney({ unit: 'iso4217/USD', value: '9007199254740993' }, 'en-US'), '$90,071,992,547,409.93');
    assert.equal(formatMoney({ unit: 'iso4217/JPY', value: '1500' }, 'en-US'), '¥1,500');
    assert.match(formatMoney({ unit: 'iso4217/BHD', value: '1500' }, 'en-US'), /^BHD\s1\.500$/);
    assert.equal(
      formatMoney({ unit: 'caip19/eip155:1/erc20:0xabc', value: '12' }, 'en-US'),
      '12 caip19/eip155:1/erc20:0xabc',
    );
  });

  it('formats token amounts in whole tokens exactly with their symbol, and in minor units without the decimals', () => {
    const usdc = { symbol: 'USDC', decimals: 6 };
    const unit = 'caip19/eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
    assert.equal(formatTokenAmount({ unit, value: '12275000' }, usdc), '12.275 USDC');
    assert.equal(formatTokenAmount({ unit, value: '12000000' }, usdc), '12 USDC');
    assert.equal(formatTokenAmount({ unit, value: '1' }, usdc), '0.000001 USDC');
    assert.equal(formatTokenAmount({ unit, value: '0' }, usdc), '0 USDC');
    assert.equal(formatTokenAmount({ unit, value: '18446744073709551623' }, usdc), '18446744073709.551623 USDC');
    assert.equal(formatTokenAmount({ unit, value: '7' }, null), '7 minor units');
  });

  it('formats success rates from their decimal string, rounded, and a missing rate as a dash', () => {
    assert.equal(formatRate('0.6667', 'en-US'), '66.7%');
    assert.equal(formatRate('1.0000', 'en-US'), '100.0%');
    assert.equal(formatRate(null, 'en-US'), '—');
  });

  it('bounds a date filter by local midnights, the end day included; refuses what is not a date', () => {
    const start = localMidnight('2026-02-18')!;
    assert.equal(start, new Date(2026, 1, 18).getTime() / 1000);
    assert.equal(localMidnightAfter('2026-02-18'), new Date(2026, 1, 19).getTime() / 1000);
    assert.equal(localMidnightAfter('2026-12-31'), new Date(2027, 0, 1).getTime() / 1000);
    assert.equal(localMidnight(''), null);
    assert.equal(localMidnight('18/02/2026'), null);
  });

  it('names the download from Content-Disposition, without paths or control characters', () => {
    assert.equal(fileNameOf('attachment; filename="payments-test-2026-02-18.csv"'), 'payments-test-2026-02-18.csv');
    assert.equal(fileNameOf('attachment; filename=plain.csv'), 'plain.csv');
    assert.equal(fileNameOf('attachment; filename*=UTF-8\'\'r%C3%A9sum%C3%A9.csv; filename="x.csv"'), 'résumé.csv');
    assert.equal(fileNameOf('attachment; filename="../../etc/passwd"'), 'passwd');
    assert.equal(fileNameOf('attachment; filename="a\u0007b.csv"'), 'ab.csv');
    assert.equal(fileNameOf('attachment; filename=".."'), null);
    assert.equal(fileNameOf(null), null);
  });
});
