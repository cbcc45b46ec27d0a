/** The checkout's option order (§26.8) and an option's rate, without a browser (web/src/checkout/options.ts, format.ts). */
import assert from 'node:assert/strict';
import type { PayableOption } from '@paygate/sdk-wallet';
import { formatRate } from '../../web/src/checkout/format.js';
import { simplestFirst } from '../../web/src/checkout/options.js';

function option(
  id: string,
  symbol: string,
  decimals: number,
  method: string,
  account = 'eip155:1:0xabc',
): PayableOption {
  return {
    id,
    account,
    amount: {
      unit: `caip19/eip155:1/erc20:${id}`,
      value: '1',
      display: { assetSymbol: symbol, assetName: symbol, decimals },
    },
    actions: [{ type: 'walletRpc', data: { method, params: [] } }],
    etaS: 2,
  } as unknown as PayableOption;
}

describe('checkout option order and rates', () => {
  it('simplestFirst: a gasless stablecoin, then a stablecoin needing gas, then a gasless volatile asset, then the rest; ties keep the gateway order', () => {
    const ethSend = option('eth', 'ETH', 18, 'eth_sendTransaction');
    const usdcSend = option('usdc-send', 'USDC', 6, 'eth_sendTransaction');
    const tusdSigned = option('tusd', 'TUSD', 6, 'eth_signTypedData_v4');
    const solanaSol = option('sol', 'SOL', 9, 'solana_signTransaction', 'solana:abc:xyz');
    const usdtSigned = option('usdt', 'USDT', 6, 'eth_signTypedData_v4');
    const ordered = simplestFirst([ethSend, usdcSend, tusdSigned, solanaSol, usdtSigned]).map((o) => o.id);
    assert.deepEqual(ordered, ['tusd', 'usdt', 'usdc-send', 'sol', 'eth']);
  });

  it('formatRate: what one whole token costs in the payment currency, in integers, rounded to the cent', () => {
    const fiat = {
      unit: 'iso4217/USD',
      value: '1250',
      display: { assetSymbol: 'USD', assetName: 'US Dollar', decimals: 2 },
    };
    const eth = {
      unit: 'caip19/x',
      value: '4166666666666667',
      display: { assetSymbol: 'ETH', assetName: 'Ether', decimals: 18 },
    };
    assert.equal(formatRate(fiat, eth, 'en'), '$3,000.00');
    const tusd = {
      unit: 'caip19/y',
      value: '12500000',
      display: { assetSymbol: 'TUSD', assetName: 'Test USD', decimals: 6 },
    };
    assert.equal(formatRate(fiat, tusd, 'fr'), '1,00\u00a0$US');
    assert.equal(formatRate(fiat, { ...tusd, value: '0' }, 'en'), null);
  });
});
