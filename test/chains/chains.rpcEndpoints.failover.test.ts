import assert from 'node:assert/strict';
import { generateKeyPairSigner, lamports } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { createPublicClient, createWalletClient, type Hex } from 'viem';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { parseChainDocuments } from '../../server/src/chains/chainsSetting.js';
import { evmRpcPool, observedTransport, viemChain } from '../../server/src/chains/eip155/client.js';
import { createSolanaClient, solanaRpcPool } from '../../server/src/chains/solana/client.js';
import { localSolanaConfig } from '../../server/src/chains/solana/localConfig.js';
import type { RpcEndpointConfig } from '../../server/src/chains/rpcEndpoints.js';
import { pino } from 'pino';
import type { RpcPool } from '../../server/src/chains/rpcPool.js';
import { createMetrics } from '../../server/src/observability/metrics.js';
import { silentObserver, type Observer } from '../../server/src/observability/observer.js';
import { sharedLocalChain } from '../helpers/chain.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { fundedWallet, sharedLocalSolana, signedTransaction } from '../helpers/solana.js';
import { eventually, receiptOf } from '../helpers/wait.js';

const endpoint = (url: string, timeoutMs = 400): RpcEndpointConfig => ({ url, timeoutMs, weight: 1 });

describe('several RPC endpoints per chain, through the fault proxy', () => {
  const proxies: FaultProxy[] = [];
  let clock = 1_000_000;
  const now = () => clock;
  afterEach(async () => {
    while (proxies.length) await proxies.pop()!.close();
  });

  async function evmPair(observer: Observer = silentObserver) {
    const chain = await sharedLocalChain();
    const [a, b] = [await startFaultProxy(chain.config.rpcUrl), await startFaultProxy(chain.config.rpcUrl)];
    proxies.push(a, b);
    const config = { ...chain.config, rpcEndpoints: [endpoint(a.url), endpoint(b.url)] };
    const pool = evmRpcPool(config, observer, { now, breakerOpenMs: 1_000, backoffMs: 10, headRefreshMs: 0 });
    const transport = observedTransport(config, observer, pool);
    const client = createPublicClient({ chain: viemChain(config), transport, pollingInterval: 50 });
    return { chain, config, a, b, pool, client, transport };
  }

  it('the configuration takes rpcUrls with timeouts and weights, and a comma list in rpcUrl', async () => {
    const chain = await sharedLocalChain();
    const { rpcEndpoints: _e, ...base } = chain.config as typeof chain.config & { rpcEndpoints?: unknown };
    const doc = (extra: object) => ({
      chains: [{ ...base, chainId: undefined, namespace: undefined, ...extra }].map((c) =>
        Object.fromEntries(Object.entries(c).filter(([k, v]) => v !== undefined && k !== 'namespace')),
      ),
    });
    const listed = parseChainDocuments(
      doc({
        rpcUrl: 'http://a.example, http://b.example',
        rpcUrls: [{ url: 'http://c.example', timeoutMs: 900, weight: 3 }],
      }),
    ).evm[0]!;
    assert.deepEqual(
      listed.rpcEndpoints!.map((e) => [e.url, e.timeoutMs, e.weight]),
      [
        ['http://c.example', 900, 3],
        ['http://a.example', 10_000, 1],
        ['http://b.example', 10_000, 1],
      ],
    );
    assert.equal(listed.rpcUrl, 'http://c.example');
    assert.throws(() => parseChainDocuments(doc({ rpcUrl: 'http://a.example,ftp://b' })), /rpcUrl/);
  });

  it('reads fail over past 429 (honouring Retry-After), 5xx, resets, timeouts, garbage and a wrong id', async () => {
    const { a, b, client, pool } = await evmPair();
    a.inject('*', { kind: 'rateLimit', retryAfterS: 30 }, 1);
    assert.ok((await client.getBlockNumber({ cacheTime: 0 })) > 0n);
    const limitedCalls = a.calls.length;
    await client.getChainId();
    assert.equal(a.calls.length, limitedCalls, 'a rate-limited endpoint is not asked before its Retry-After');

    clock += 31_000;
    for (const fault of [
      { kind: 'serverError' },
      { kind: 'reset' },
      { kind: 'timeout' },
      { kind: 'malformed' },
      { kind: 'wrongId' },
    ] as const) {
      a.inject('eth_getBalance', fault, 1);
      b.inject('eth_getBalance', fault, 1);
      a.inject('eth_chainId', fault, 1);
      assert.ok((await client.getBalance({ address: '0x0000000000000000000000000000000000000001' })) >= 0n, fault.kind);
      a.heal();
      b.heal();
    }
    assert.ok(pool.healthy());
  });

  it('a breaker opens after repeated errors, stays open, then closes after a half-open probe; metrics show it', async () => {
    let pool: RpcPool | null = null;
    const metrics = createMetrics({
      logger: pino({ level: 'silent' }),
      queueDepth: async () => ({}),
      rpcEndpointHealth: () => [{ chain: 'eip155:31337', endpoints: pool!.health() }],
    });
    const pair = await evmPair(metrics.observer);
    pool = pair.pool;
    const { a, client } = pair;
    a.inject('*', { kind: 'serverError', status: 503 });
    await client.getChainId();
    // A failed endpoint is asked last; the head probes still ask it, and their errors open its breaker.
    for (let i = 0; i < 3; i += 1) await pool.refreshHeads();
    assert.equal(pool.health()[0]!.breaker, 'open');
    assert.equal(pool.healthy(), true, 'the other endpoint still serves');
    const scrape = await metrics.registry.metrics();
    assert.match(scrape, /paygate_chain_rpc_endpoint_breaker_state\{chain="eip155:31337",endpoint="endpoint0"\} 2/);
    assert.match(scrape, /paygate_chain_rpc_endpoint_available\{chain="eip155:31337",endpoint="endpoint1"\} 1/);
    assert.match(
      scrape,
      /paygate_chain_rpc_endpoint_requests_total\{chain="eip155:31337",endpoint="endpoint0",outcome="http"\} [3-9]/,
    );
    assert.doesNotMatch(scrape, /127\.0\.0\.1/, 'no endpoint URL in the metrics');
    const asked = a.calls.length;
    await client.getChainId();
    assert.equal(a.calls.length, asked, 'an open breaker is not asked');
    clock += 1_001;
    assert.equal(pool.health()[0]!.breaker, 'halfOpen');
    a.heal();
    await pool.refreshHeads();
    assert.equal(pool.health()[0]!.breaker, 'closed');

    // Every endpoint down: the chain is unavailable (readiness fails), then back without a restart.
    a.inject('*', { kind: 'reset' });
    pair.b.inject('*', { kind: 'reset' });
    for (let i = 0; i < 3; i += 1) await pool.refreshHeads();
    assert.equal(pool.healthy(), false);
    await assert.rejects(client.getChainId());
    a.heal();
    pair.b.heal();
    clock += 5_000;
    assert.ok((await client.getBlockNumber({ cacheTime: 0 })) > 0n);
    assert.equal(pool.healthy(), true);
  });

  it('a node whose head lags is not asked, and one node’s "not found" does not hide a mined transaction', async () => {
    const { chain, a, b, pool, client } = await evmPair();
    const head = await client.getBlockNumber({ cacheTime: 0 });
    a.inject('*', { kind: 'staleHead', head: head - 5n < 0n ? 0n : head - 5n });
    const hash = await chain.faucet.sendTransaction({ to: chain.faucet.account.address, value: 1n });
    await chain.test.mine({ blocks: 5 });
    await pool.refreshHeads();
    assert.equal(pool.health()[0]!.available, false, 'the lagging node is out');
    const before = a.calls.length;
    await receiptOf(client, hash);
    assert.equal(a.calls.filter((c) => c.method === 'eth_getTransactionReceipt').length, 0);
    assert.ok(a.calls.length >= before);

    a.heal();
    await pool.refreshHeads();
    b.inject('eth_getTransactionReceipt', { kind: 'notFound', ids: [hash] });
    a.inject('eth_getTransactionReceipt', { kind: 'notFound', ids: [hash] });
    b.heal();
    const receipt = await eventually('the receipt through the pool', () => receiptOf(client, hash), {
      timeoutMs: 3_000,
    });
    assert.equal(receipt.transactionHash, hash);
  });

  it('a send goes to every endpoint with the same bytes, so one that drops it does not lose it', async () => {
    const { chain, a, b, config, transport } = await evmPair();
    const account = privateKeyToAccount(generatePrivateKey());
    await receiptOf(chain.clients.public, await chain.fund.sendEther(account.address, 10n ** 16n));
    const wallet = createWalletClient({ chain: viemChain(config), transport, account });
    a.inject('eth_sendRawTransaction', { kind: 'dropSend' });
    const hash = await wallet.sendTransaction({ to: account.address, value: 1n });
    const receipt = await receiptOf(chain.clients.public, hash);
    assert.equal(receipt.status, 'success');
    const forwarded = b.calls.find((c) => c.method === 'eth_sendRawTransaction')!.params as [Hex];
    assert.deepEqual(a.dropped, [forwarded[0]], 'the same signed bytes, once signed');
  });

  it('Solana: reads fail over a dead endpoint and a dropped broadcast still lands through the other', async () => {
    const solana = await sharedLocalSolana();
    const [a, b] = [await startFaultProxy(solana.rpcUrl), await startFaultProxy(solana.rpcUrl)];
    proxies.push(a, b);
    const config = { ...localSolanaConfig(solana), rpcEndpoints: [endpoint(a.url), endpoint(b.url)] };
    const pool = solanaRpcPool(config, silentObserver, { now, backoffMs: 10, headRefreshMs: 0 });
    const rpc = createSolanaClient(config, silentObserver, pool);
    a.inject('*', { kind: 'serverError' });
    assert.ok((await rpc.getSlot().send()) > 0n);
    a.heal();

    const payer = await fundedWallet();
    const to = await generateKeyPairSigner();
    a.inject('sendTransaction', { kind: 'dropSend' });
    const signed = await signedTransaction(payer, [
      getTransferSolInstruction({ source: payer, destination: to.address, amount: lamports(1_000_000n) }),
    ]);
    assert.equal(await rpc.sendTransaction(signed.wire, { encoding: 'base64' }).send(), signed.signature);
    assert.deepEqual(a.dropped, [signed.wire]);
    await eventually('the broadcast landed', async () => (await rpc.getBalance(to.address).send()).value > 0n);
  });
});
