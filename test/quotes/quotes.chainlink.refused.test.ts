/**
 * Rounds the Chainlink provider refuses, each made on a TestPriceFeed on the run's local chain: stale, carried over,
 * non-positive or incomplete, an L2 whose sequencer is down or only just back, and feeds that cannot be read. Every
 * refusal is a null quote and a warning, never an exception.
 */
import assert from 'node:assert/strict';
import { privateKeyToAddress, generatePrivateKey } from 'viem/accounts';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import type { LocalEvmChain } from '../../server/src/chains/local.js';
import { createPricing, type PricedAsset, type PricingChain } from '../../server/src/quotes/index.js';
import { deadRpcUrl, sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import { captureLogs, type CapturedLogs } from '../helpers/logs.js';
import { chainWithFeeds, deployFeed, seconds, type TestFeed } from './feeds.js';

const NOW = Date.UTC(2026, 1, 18, 10, 0, 0);
const NOW_S = seconds(NOW);
const USD_10 = { currency: 'USD', digits: 2, minor: 1000n };
const HEARTBEAT_S = 3600;

describe('quotes.chainlink refusals', function () {
  useChainSnapshots();

  let chain: LocalEvmChain;
  let eth: PricedAsset;
  let feed: TestFeed;
  let logs: CapturedLogs;
  before(async () => {
    chain = await sharedLocalChain();
    eth = { ...chain.config.assets[0]!, chainCaip2: chain.config.caip2 };
  });
  beforeEach(async () => {
    feed = await deployFeed(chain, 8, 'ETH / USD');
    logs = captureLogs();
  });

  function quote(priced: PricingChain, now = NOW) {
    const p = createPricing({
      chains: [priced],
      config: { quoteTtlMs: 300_000, ratesFile: null },
      logger: logs.logger,
    });
    return p.quote(USD_10, eth, now);
  }

  const ethOnly = () => chainWithFeeds(chain, { 'ETH/USD': { feed, heartbeatS: HEARTBEAT_S } });

  /** The warnings logged, as messages. */
  function warnings(): string[] {
    return logs
      .lines()
      .filter((l) => l.level === 40)
      .map((l) => String(l.msg));
  }

  describe('a price round', () => {
    it('is refused once older than the heartbeat, and accepted at exactly the heartbeat', async () => {
      await feed.setAnswer(3000_00000000n, NOW_S - BigInt(HEARTBEAT_S) - 1n);
      assert.equal(await quote(ethOnly()), null);
      assert.match(warnings().join('\n'), /price feed refused: .*3601 s old, older than its heartbeat of 3600 s/);

      await feed.setAnswer(3000_00000000n, NOW_S - BigInt(HEARTBEAT_S));
      assert.equal((await quote(ethOnly()))!.amount, 3_333_333_333_333_334n);
    });

    it('is refused when it carries the answer of an earlier round (answeredInRound < roundId)', async () => {
      const round = { answer: 3000_00000000n, startedAt: NOW_S - 10n, updatedAt: NOW_S - 10n };
      await feed.setRound({ ...round, roundId: 7n, answeredInRound: 6n });
      assert.equal(await quote(ethOnly()), null);
      assert.match(warnings().join('\n'), /round 7 carries the answer of the earlier round 6/);

      await feed.setRound({ ...round, roundId: 8n, answeredInRound: 8n });
      assert.ok(await quote(ethOnly()));
    });

    it('is refused when its answer is not a positive price', async () => {
      await feed.setAnswer(0n, NOW_S);
      assert.equal(await quote(ethOnly()), null);
      await feed.setAnswer(-3000_00000000n, NOW_S);
      assert.equal(await quote(ethOnly()), null);
      assert.deepEqual(
        warnings().map((w) => /its answer (-?\d+) is not a price/.exec(w)?.[1]),
        ['0', '-300000000000'],
      );
    });

    it('is refused when it is not complete (updatedAt 0)', async () => {
      await feed.setRound({
        roundId: 1n,
        answer: 3000_00000000n,
        startedAt: NOW_S,
        updatedAt: 0n,
        answeredInRound: 1n,
      });
      assert.equal(await quote(ethOnly()), null);
      assert.match(warnings().join('\n'), /round 1 is not complete/);
    });

    it('refuses a cross rate when either of its feeds is stale', async () => {
      const eurUsd = await deployFeed(chain, 8, 'EUR / USD');
      await feed.setAnswer(3000_00000000n, NOW_S);
      await eurUsd.setAnswer(1_08000000n, NOW_S - 86_401n);
      const priced = chainWithFeeds(chain, {
        'ETH/USD': { feed, heartbeatS: HEARTBEAT_S },
        'EUR/USD': { feed: eurUsd, heartbeatS: 86_400 },
      });
      const p = createPricing({ chains: [priced], config: { quoteTtlMs: 1, ratesFile: null } });
      assert.equal(await p.quote({ currency: 'EUR', digits: 2, minor: 100n }, eth, NOW), null);
      assert.ok(await p.quote(USD_10, eth, NOW), 'ETH in USD needs only the fresh feed');
    });
  });

  describe('an L2 sequencer uptime feed', () => {
    let sequencer: TestFeed;
    beforeEach(async () => {
      sequencer = await deployFeed(chain, 0, 'L2 Sequencer Uptime Status Feed');
      await feed.setAnswer(3000_00000000n, NOW_S - 30n);
    });

    const l2 = () => chainWithFeeds(chain, { 'ETH/USD': { feed, heartbeatS: HEARTBEAT_S } }, sequencer);
    const status = (answer: bigint, since: bigint) =>
      sequencer.setRound({ roundId: 2n, answer, startedAt: since, updatedAt: since, answeredInRound: 2n });

    it('refuses every price while the sequencer is down', async () => {
      await status(1n, NOW_S - 86_400n);
      assert.equal(await quote(l2()), null);
      assert.match(warnings().join('\n'), /sequencer uptime feed refused: the sequencer is down/);
    });

    it('refuses prices for an hour after the sequencer came back up, and accepts them after', async () => {
      await status(0n, NOW_S - 3599n);
      assert.equal(await quote(l2()), null);
      assert.match(warnings().join('\n'), /came back up 3599 s ago, within the 3600 s grace period/);

      await status(0n, NOW_S - 3600n);
      const quoted = await quote(l2());
      assert.equal(quoted!.source, 'chainlink');
      assert.equal(quoted!.amount, 3_333_333_333_333_334n);
    });

    it('refuses prices when the uptime feed has no valid round (startedAt 0)', async () => {
      await status(0n, 0n);
      assert.equal(await quote(l2()), null);
      assert.match(warnings().join('\n'), /no valid round \(startedAt 0\)/);
    });

    it('is not consulted for a peg, which needs no price', async () => {
      await status(1n, NOW_S);
      const p = createPricing({ chains: [l2()], config: { quoteTtlMs: 300_000, ratesFile: null } });
      const tusd = { ...chain.config.assets[1]!, chainCaip2: chain.config.caip2 };
      assert.equal((await p.quote(USD_10, tusd, NOW))!.source, 'peg');
    });
  });

  describe('a feed that cannot be read', () => {
    it('yields no quote when the feed address holds no contract', async () => {
      const nowhere = privateKeyToAddress(generatePrivateKey());
      const priced = chainWithFeeds(chain, { 'ETH/USD': { feed: { ...feed, address: nowhere }, heartbeatS: 60 } });
      assert.equal(await quote(priced), null);
      assert.match(warnings().join('\n'), /price feed read failed; no quote/);
    });

    it('yields no quote when the sequencer feed cannot be read', async () => {
      await feed.setAnswer(3000_00000000n, NOW_S);
      const nowhere = privateKeyToAddress(generatePrivateKey());
      const priced = chainWithFeeds(chain, { 'ETH/USD': { feed, heartbeatS: 60 } }, { ...feed, address: nowhere });
      assert.equal(await quote(priced), null);
      assert.match(warnings().join('\n'), /price feed read failed/);
    });

    it('yields no quote when the RPC endpoint is down, without leaking its URL', async () => {
      const url = await deadRpcUrl();
      const config = { ...chain.config, rpcUrl: url };
      const priced = chainWithFeeds(chain, { 'ETH/USD': { feed, heartbeatS: 60 } });
      assert.equal(await quote({ ...priced, clients: createEvmClients(config) }), null);
      assert.deepEqual(warnings(), ['price feed read failed; no quote']);
      assert.ok(!logs.text().includes(url), 'the log line does not carry the RPC URL');
    });
  });
});
