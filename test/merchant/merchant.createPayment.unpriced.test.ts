import assert from 'node:assert/strict';
import type { Chains } from '../../server/src/chains/index.js';
import { sharedChains } from '../helpers/chain.js';
import { expectError, expectJson, startGatewayHarness, type GatewayHarness } from '../gateway/harness.js';

/**
 * The local chain as a live preset sees it: a Chainlink ETH/USD feed and a USD stablecoin, so USD is the only
 * currency it can price (the feed is never read: create only asks which currencies could be priced).
 */
function asLivePreset(chains: Chains): Chains {
  const feed = { address: '0x000000000000000000000000000000000000fEED' as const, heartbeatS: 3600 };
  return {
    ...chains,
    evm: chains.evm.map((c) => ({ ...c, config: { ...c.config, mode: 'live', priceFeeds: { 'ETH/USD': feed } } })),
  } as Chains;
}

describe('merchant createPayment: currencies no configured chain can price', () => {
  let live: GatewayHarness;
  let test: GatewayHarness;
  before(async () => {
    live = await startGatewayHarness({ chains: asLivePreset(await sharedChains()) });
    test = await startGatewayHarness({ chains: await sharedChains() });
  });
  after(async () => {
    await live.close();
    await test.close();
  });

  const create = (h: GatewayHarness, unit: string, isLive: boolean) =>
    h.call('POST', '/v1/merchant/payment', {
      headers: { 'Api-Key': isLive ? h.account.liveKey : h.account.testKey, 'Merchant-Id': h.account.merchantId },
      body: { amount: { unit, value: '1500' }, referenceId: 'order_1' },
    });

  it('refuses a live GBP or JPY payment with 400 params_validation naming the priced currencies, and writes nothing', async () => {
    for (const unit of ['iso4217/GBP', 'iso4217/JPY']) {
      const message = await expectError(await create(live, unit, true), 400, 'params_validation');
      assert.match(message, new RegExp(`${unit.slice(-3)}.*live.*USD`));
    }
    assert.equal(Number((await live.runtime.db.knex('payments').count({ n: '*' }).first())?.n), 0);
    await expectJson(await create(live, 'iso4217/USD', true), 201);
  });

  it('accepts in test mode every currency the static table prices, and refuses one it does not', async () => {
    for (const unit of ['iso4217/USD', 'iso4217/EUR', 'iso4217/GBP', 'iso4217/JPY']) {
      await expectJson(await create(test, unit, false), 201);
    }
    const message = await expectError(await create(test, 'iso4217/CHF', false), 400, 'params_validation');
    assert.match(message, /CHF.*test.*EUR, GBP, JPY, USD/);
  });
});
