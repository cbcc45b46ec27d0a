import assert from 'node:assert/strict';
import { loadChainsSetting } from '../../server/src/chains/chainsSetting.js';
import { BUILT_IN_RATES, loadStaticRates, pricedCurrenciesOf } from '../../server/src/quotes/index.js';

const key = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const env: Record<string, string> = {
  PAYGATE_RELAYER_KEY: key,
  PAYGATE_TESTNET_RELAYER_KEY: key,
  ...Object.fromEntries(
    [
      'ETHEREUM',
      'BASE',
      'ARBITRUM',
      'OPTIMISM',
      'POLYGON',
      'SEPOLIA',
      'BASE_SEPOLIA',
      'ARBITRUM_SEPOLIA',
      'OPTIMISM_SEPOLIA',
      'POLYGON_AMOY',
    ].map((n) => [`PAYGATE_RPC_${n}`, 'https://rpc.example']),
  ),
};

describe('quotes pricedCurrencies: the shipped presets', () => {
  const asChains = (setting: string) => loadChainsSetting(setting, env).map((config) => ({ config }));

  it('live prices USD and EUR only; testnet every currency of the static table; a mode without chains is unchecked', () => {
    const priced = pricedCurrenciesOf(asChains('live,testnet'), loadStaticRates());
    assert.deepEqual(priced(true), ['EUR', 'USD']);
    const sides = new Set(Object.keys(BUILT_IN_RATES).flatMap((pair) => pair.split('/')));
    assert.deepEqual(
      priced(false),
      ['EUR', 'GBP', 'JPY', 'USD'].filter((c) => sides.has(c)),
    );
    assert.equal(pricedCurrenciesOf(asChains('live'), loadStaticRates())(false), null);
  });
});
