/**
 * Conversion from a fiat amount to a token amount: exact, and rounded up so the merchant never receives less than
 * the fiat amount. Expected amounts were worked out by hand (Python's `fractions`), not by the code under test.
 */
import assert from 'node:assert/strict';
import { createPricing, type FiatAmount, type PricedAsset } from '../../server/src/quotes/index.js';
import { parseDecimal, ratio, tokenAmount } from '../../server/src/quotes/rational.js';

const CHAIN = 'eip155:31337';
const NOW = Date.UTC(2026, 1, 18, 10, 0, 0);

function asset(symbol: string, decimals: number, peg: string | null = null): PricedAsset {
  return { caip19: `${CHAIN}/erc20:${symbol}`, symbol, decimals, peg, chainCaip2: CHAIN };
}

function fiat(currency: string, digits: number, minor: bigint): FiatAmount {
  return { currency, digits, minor };
}

/** Pricing over a test-mode chain without feeds, from exactly these static rates. */
function pricing(rates: Record<string, string>) {
  return createPricing({
    chains: [{ config: { caip2: CHAIN, mode: 'test', priceFeeds: {}, sequencerUptimeFeed: null } }],
    config: { quoteTtlMs: 300_000, ratesFile: null },
    staticRates: new Map(Object.entries(rates).map(([pair, price]) => [pair, parseDecimal(price)!])),
  });
}

describe('quotes.convert', () => {
  describe('a stablecoin of the payment currency (peg)', () => {
    const p = pricing({});

    it('pays 1:1 scaled to the token decimals, with no rate and no expiry', async () => {
      assert.deepEqual(await p.quote(fiat('USD', 2, 1250n), asset('USDC', 6, 'USD'), NOW), {
        amount: 12_500_000n,
        rate: null,
        source: 'peg',
        expiresAt: null,
      });
    });

    it('rounds up when the token has fewer decimals than the currency', async () => {
      // $12.51 in a 1-decimal dollar token is 125.1 tenths: 126.
      assert.equal((await p.quote(fiat('USD', 2, 1251n), asset('D1', 1, 'USD'), NOW))!.amount, 126n);
      assert.equal((await p.quote(fiat('USD', 2, 1250n), asset('D1', 1, 'USD'), NOW))!.amount, 125n);
      // KWD has 3 digits: 1.005 KWD in a 2-decimal KWD token is 100.5 hundredths: 101.
      assert.equal((await p.quote(fiat('KWD', 3, 1005n), asset('KWDT', 2, 'KWD'), NOW))!.amount, 101n);
      assert.equal((await p.quote(fiat('KWD', 3, 1000n), asset('KWDT', 2, 'KWD'), NOW))!.amount, 100n);
      // A 0-decimal token of a 2-digit currency: $0.01 is still one whole token, never zero.
      assert.equal((await p.quote(fiat('USD', 2, 1n), asset('D0', 0, 'USD'), NOW))!.amount, 1n);
    });

    it('scales a zero-digit currency (JPY) and a three-digit one (KWD) up to the token decimals', async () => {
      assert.equal((await p.quote(fiat('JPY', 0, 1250n), asset('JPYC', 18, 'JPY'), NOW))!.amount, 1250n * 10n ** 18n);
      assert.equal((await p.quote(fiat('KWD', 3, 1005n), asset('KWDT', 6, 'KWD'), NOW))!.amount, 1_005_000n);
    });

    it('quotes zero for zero', async () => {
      assert.equal((await p.quote(fiat('USD', 2, 0n), asset('USDC', 6, 'USD'), NOW))!.amount, 0n);
    });
  });

  describe('at a rate', () => {
    const p = pricing({ 'ETH/USD': '3000', 'EUR/USD': '1.08', 'USD/JPY': '150', 'KWD/USD': '3.25' });

    it('rounds a non-terminating amount up to the next minor unit', async () => {
      // 12.50 / 3000 ETH = 0.0041666… ETH = 4166666666666666.67 wei.
      const quote = await p.quote(fiat('USD', 2, 1250n), asset('ETH', 18), NOW);
      assert.equal(quote!.amount, 4_166_666_666_666_667n);
      assert.deepEqual(quote!.rate, { numerator: '3000', denominator: '1' });
      assert.equal(quote!.source, 'static');
    });

    it('adds nothing when the division is exact', async () => {
      assert.equal((await p.quote(fiat('USD', 2, 300_000n), asset('ETH', 18), NOW))!.amount, 10n ** 18n);
    });

    it('converts a zero-digit currency (JPY) through a cross rate', async () => {
      // ¥1000 at 450000 JPY/ETH (3000 USD/ETH × 150 JPY/USD) = 2222222222222222.2 wei.
      const quote = await p.quote(fiat('JPY', 0, 1000n), asset('ETH', 18), NOW);
      assert.equal(quote!.amount, 2_222_222_222_222_223n);
      assert.deepEqual(quote!.rate, { numerator: '450000', denominator: '1' });
    });

    it('converts a three-digit currency (KWD)', async () => {
      // 1.001 KWD = 3.25325 USD = 0.00108441666… ETH.
      const quote = await p.quote(fiat('KWD', 3, 1001n), asset('ETH', 18), NOW);
      assert.equal(quote!.amount, 1_084_416_666_666_667n);
      // KWD per ETH: 3000 / 3.25 = 12000/13, in lowest terms.
      assert.deepEqual(quote!.rate, { numerator: '12000', denominator: '13' });
    });

    it('prices a stablecoin of another currency at its currency: EURC for dollars, USDC for euros', async () => {
      // $12.50 at 1.08 USD per EURC = 11.574074… EURC.
      const eurc = await p.quote(fiat('USD', 2, 1250n), asset('EURC', 6, 'EUR'), NOW);
      assert.equal(eurc!.amount, 11_574_075n);
      assert.deepEqual(eurc!.rate, { numerator: '27', denominator: '25' });
      // €10.00 at 25/27 EUR per USDC = exactly 10.8 USDC.
      const usdc = await p.quote(fiat('EUR', 2, 1000n), asset('USDC', 6, 'USD'), NOW);
      assert.equal(usdc!.amount, 10_800_000n);
      assert.deepEqual(usdc!.rate, { numerator: '25', denominator: '27' });
    });

    it('always returns the smallest amount worth at least the fiat amount', async () => {
      // Checked by cross-multiplication: amount·price ≥ fiat > (amount − 1)·price, over many amounts and tokens.
      const cases: [FiatAmount, PricedAsset][] = [];
      for (let minor = 1n; minor < 4000n; minor += 37n) {
        cases.push([fiat('USD', 2, minor * 101n), asset('ETH', 18)]);
        cases.push([fiat('JPY', 0, minor * 7n), asset('ETH', 18)]);
        cases.push([fiat('KWD', 3, minor * 13n), asset('EURC', 6, 'EUR')]);
        cases.push([fiat('EUR', 2, minor), asset('D1', 1, 'USD')]);
      }
      for (const [f, a] of cases) {
        const quote = (await p.quote(f, a, NOW))!;
        const n = BigInt(quote.rate!.numerator);
        const d = BigInt(quote.rate!.denominator);
        // fiat major = minor / 10^digits; paid major = amount / 10^decimals × n / d.
        const fiatSide = f.minor * d * 10n ** BigInt(a.decimals);
        const paid = (amount: bigint) => amount * n * 10n ** BigInt(f.digits);
        assert.ok(paid(quote.amount) >= fiatSide, `${f.minor} ${f.currency} in ${a.symbol}: too little`);
        assert.ok(paid(quote.amount - 1n) < fiatSide, `${f.minor} ${f.currency} in ${a.symbol}: not minimal`);
      }
    });
  });

  describe('the arithmetic', () => {
    it('reads decimal strings exactly and refuses anything else', () => {
      assert.deepEqual(parseDecimal('3000'), { n: 3000n, d: 1n });
      assert.deepEqual(parseDecimal('1.0800'), { n: 27n, d: 25n });
      assert.deepEqual(parseDecimal('0.0067'), { n: 67n, d: 10_000n });
      for (const bad of ['0', '0.000', '-1', '1e3', '1.', '.5', ' 1', '0x10', '01', '']) {
        assert.equal(parseDecimal(bad), null, bad);
      }
    });

    it('keeps precision far beyond a double', () => {
      // 2^53 + 1 minor units would already be rounded by a float.
      const minor = 2n ** 53n + 1n;
      assert.equal(tokenAmount(minor, 2, ratio(1n, 1n), 18), minor * 10n ** 16n);
      assert.equal(tokenAmount(10n ** 30n + 1n, 2, ratio(3n, 1n), 2), (10n ** 30n + 1n + 2n) / 3n);
    });
  });
});
