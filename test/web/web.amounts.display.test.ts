/**
 * The one amount display rule (web/src/kit/amounts.ts, decisions §26.3), outside the browser: significant digits by
 * asset, a payable amount never rounded down, the full amount on demand, exact beyond 2^53.
 */
import assert from 'node:assert/strict';
import { showAmount, showFiat, toDecimal } from '../../web/src/kit/amounts.js';

describe('web.amounts', () => {
  it('shows a volatile asset with six significant digits, rounding a payable amount up, the full amount kept', () => {
    const eth = showAmount({ value: '4166666666666667', decimals: 18, symbol: 'ETH' });
    assert.equal(eth.text, '0.00416667 ETH');
    assert.equal(eth.full, '0.004166666666666667 ETH');
    assert.equal(eth.exact, false);
    // 0.004166661 would round down to 0.00416666 at the nearest; a payable amount goes up.
    assert.equal(showAmount({ value: '4166661000000000', decimals: 18, symbol: 'ETH' }).decimal, '0.00416667');
    assert.equal(
      showAmount({ value: '4166661000000000', decimals: 18, symbol: 'ETH' }, { rounding: 'nearest' }).decimal,
      '0.00416666',
    );
  });

  it('shows a stablecoin in cents, rounding a payable 12.505 up to 12.51, and an exact amount as it is', () => {
    assert.equal(showAmount({ value: '12500000', decimals: 6, symbol: 'USDC' }).text, '12.50 USDC');
    assert.equal(showAmount({ value: '12505000', decimals: 6, symbol: 'USDC' }).text, '12.51 USDC');
    assert.equal(showAmount({ value: '12505000', decimals: 6, symbol: 'USDC' }).full, '12.505 USDC');
    assert.equal(showAmount({ value: '12500000', decimals: 6, symbol: 'USDC' }).exact, true);
    assert.equal(showAmount({ value: '1000', decimals: 6, symbol: 'USDC' }).text, '0.001 USDC');
  });

  it('keeps every whole digit of a large amount and stays exact beyond 2^53', () => {
    assert.equal(showAmount({ value: '9007199254740993', decimals: 0, symbol: 'X' }).decimal, '9007199254740993');
    assert.equal(showAmount({ value: '123456789000000000000000', decimals: 18, symbol: 'ETH' }).decimal, '123457');
    assert.equal(toDecimal('-5', 2), '-0.05');
  });

  it('formats in the locale and fiat with its currency', () => {
    assert.equal(
      showAmount({ value: '1234500000', decimals: 6, symbol: 'USDC' }, { locale: 'fr' }).text,
      '1\u202f234,50 USDC',
    );
    assert.equal(showFiat('1250', 'EUR', 2, 'en'), '€12.50');
  });
});
