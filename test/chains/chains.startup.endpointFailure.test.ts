/**
 * The startup metadata check through an RPC endpoint that fails its `eth_call`s (test/helpers/faultProxy.ts): found
 * by the chaos run (seed 33), where `paygate start`, restarted during an outage, refused to start saying the token
 * address holds no ERC-20. viem's multicall turns a failed request into per-call failures; an endpoint failure is
 * reported as one (docs/decisions.md §27.16), and a real missing token still is "is there an ERC-20".
 */
import assert from 'node:assert/strict';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import { ChainMetadataError, checkChainMetadata } from '../../server/src/chains/eip155/metadata.js';
import { sharedLocalChain } from '../helpers/chain.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';

describe('chains.startup through a failing endpoint', () => {
  let proxy: FaultProxy;
  before(async () => {
    proxy = await startFaultProxy((await sharedLocalChain()).config.rpcUrl);
  });
  after(() => proxy.close());

  it('an endpoint whose calls fail is reported as not answering, not as a token missing at the address', async () => {
    const chain = await sharedLocalChain();
    const config = {
      ...chain.config,
      rpcUrl: proxy.url,
      rpcEndpoints: [{ url: proxy.url, timeoutMs: 1_000, weight: 1 }],
    };
    proxy.inject('eth_call', { kind: 'serverError', status: 503 });
    await assert.rejects(checkChainMetadata(config, createEvmClients(config).public), (err: unknown) => {
      assert.ok(err instanceof ChainMetadataError);
      assert.doesNotMatch(err.message, /is there an ERC-20/);
      assert.match(err.message, /does not answer/);
      return true;
    });
    proxy.heal();
    await checkChainMetadata(config, createEvmClients(config).public);
  });
});
