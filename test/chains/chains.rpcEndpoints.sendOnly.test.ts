/**
 * A send-only endpoint (`sendRpcUrls`, decisions.md §27.13): signed transactions go to it alone, never to the read
 * endpoints (a private relay keeps them out of the public mempool), and no read is ever asked of it.
 */
import assert from 'node:assert/strict';
import { createPublicClient, createWalletClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { parseChainDocuments } from '../../server/src/chains/chainsSetting.js';
import { evmRpcPool, observedTransport, viemChain } from '../../server/src/chains/eip155/client.js';
import { silentObserver } from '../../server/src/observability/observer.js';
import { sharedLocalChain } from '../helpers/chain.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { receiptOf } from '../helpers/wait.js';

describe('chains.rpcEndpoints: a send-only endpoint', () => {
  const proxies: FaultProxy[] = [];
  after(async () => {
    for (const p of proxies) await p.close();
  });

  it('the configuration takes sendRpcUrls apart from the read endpoints', async () => {
    const chain = await sharedLocalChain();
    const { rpcEndpoints: _e, ...base } = chain.config as typeof chain.config & { rpcEndpoints?: unknown };
    const entry = Object.fromEntries(
      Object.entries({
        ...base,
        chainId: undefined,
        rpcUrl: 'http://read.example',
        sendRpcUrls: ['http://relay.example, http://relay2.example', { url: 'http://relay3.example', timeoutMs: 900 }],
      }).filter(([k, v]) => v !== undefined && k !== 'namespace'),
    );
    const parsed = parseChainDocuments({ chains: [entry] }).evm[0]!;
    assert.deepEqual(
      parsed.rpcEndpoints!.map((e) => e.url),
      ['http://read.example'],
    );
    assert.deepEqual(
      parsed.sendRpcEndpoints!.map((e) => [e.url, e.timeoutMs]),
      [
        ['http://relay.example', 10_000],
        ['http://relay2.example', 10_000],
        ['http://relay3.example', 900],
      ],
    );
    assert.throws(
      () => parseChainDocuments({ chains: [{ ...entry, sendRpcUrls: ['ftp://relay.example'] }] }),
      /sendRpcUrls/,
    );
  });

  it('sends reach the send-only endpoint alone, and reads never do', async () => {
    const chain = await sharedLocalChain();
    const [a, b, relay] = [
      await startFaultProxy(chain.config.rpcUrl),
      await startFaultProxy(chain.config.rpcUrl),
      await startFaultProxy(chain.config.rpcUrl),
    ];
    proxies.push(a, b, relay);
    const config = {
      ...chain.config,
      rpcEndpoints: [a.url, b.url].map((url) => ({ url, timeoutMs: 2_000, weight: 1 })),
      sendRpcEndpoints: [{ url: relay.url, timeoutMs: 2_000, weight: 1 }],
    };
    const pool = evmRpcPool(config, silentObserver, { headRefreshMs: 0 });
    const transport = observedTransport(config, silentObserver, pool);
    const client = createPublicClient({ chain: viemChain(config), transport, pollingInterval: 50 });
    const account = privateKeyToAccount(generatePrivateKey());
    await receiptOf(chain.clients.public, await chain.fund.sendEther(account.address, 10n ** 16n));
    const wallet = createWalletClient({ chain: viemChain(config), transport, account });

    const hash = await wallet.sendTransaction({ to: account.address, value: 1n });
    assert.equal((await receiptOf(client, hash)).status, 'success');
    const sends = (p: FaultProxy) => p.calls.filter((c) => c.method === 'eth_sendRawTransaction').length;
    assert.equal(sends(relay), 1, 'the send went to the relay');
    assert.equal(sends(a) + sends(b), 0, 'and to no read endpoint');
    assert.deepEqual(
      relay.calls.map((c) => c.method),
      ['eth_sendRawTransaction'],
      'the relay is asked nothing else',
    );
    assert.ok(a.calls.length + b.calls.length > 0, 'the reads went to the read endpoints');
  });
});
