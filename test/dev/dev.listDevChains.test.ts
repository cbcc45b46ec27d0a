import assert from 'node:assert/strict';
import type { components } from '../../server/src/generated/dev.js';
import { sharedChains, sharedLocalChain } from '../helpers/chain.js';
import type { Listening } from '../helpers/http.js';
import { devServer } from './harness.js';

type ListDevChainsResponse = components['schemas']['ListDevChainsResponse'];

describe('dev.listDevChains', () => {
  let server: Listening;
  before(async () => {
    server = await devServer(await sharedChains());
  });
  after(() => server?.close());

  it('200: lists the local EVM and Solana chains, their RPC URLs and assets, native coin first', async () => {
    const chain = await sharedLocalChain();
    const solana = (await sharedChains()).local!.solana;
    const res = await fetch(`${server.url}/v1/dev/chains`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as ListDevChainsResponse;
    assert.deepEqual(body, {
      chains: [
        {
          caip2: 'eip155:31337',
          namespace: 'eip155',
          rpcUrl: chain.config.rpcUrl,
          confirmations: 1,
          assets: [
            { caip19: 'eip155:31337/slip44:60', symbol: 'ETH', decimals: 18, address: null, eip3009: false },
            {
              caip19: `eip155:31337/erc20:${chain.testUsd}`,
              symbol: 'TUSD',
              decimals: 6,
              address: chain.testUsd,
              eip3009: true,
            },
          ],
        },
        {
          caip2: solana.caip2,
          namespace: 'solana',
          rpcUrl: solana.rpcUrl,
          confirmations: 1,
          assets: [
            { caip19: `${solana.caip2}/slip44:501`, symbol: 'SOL', decimals: 9, address: null, eip3009: false },
            {
              caip19: `${solana.caip2}/token:${solana.mints.tusd.address}`,
              symbol: 'TUSD',
              decimals: 6,
              address: solana.mints.tusd.address,
              eip3009: false,
            },
          ],
        },
      ],
    });
    // The local Solana chain's id comes from its (fixed) genesis hash.
    assert.equal(solana.caip2, 'solana:MfQzePv71xeCmNoR86q2ibum1QgT6UZj');
    // A fresh chain deploys TUSD from account #0 at nonce 0, so its address never changes between runs.
    assert.equal(chain.testUsd, '0x5FbDB2315678afecb367f032d93F642f64180aa3');
    // The RPC URL it lists is the live chain.
    const rpc = await fetch(chain.config.rpcUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    assert.equal(((await rpc.json()) as { result: string }).result, '0x7a69');
  });

  it('400 invalid_params: an unknown query parameter', async () => {
    const res = await fetch(`${server.url}/v1/dev/chains?foo=1`);
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { code: string }).code, 'invalid_params');
  });
});
