import assert from 'node:assert/strict';
import { createPublicClient, http, keccak256, parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { sharedLocalChain } from '../helpers/chain.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { generateKeyPairSigner } from '@solana/kit';
import { rawSolanaRpc, sharedLocalSolana, signedTransaction } from '../helpers/solana.js';
import { receiptOf } from '../helpers/wait.js';

let nextId = 1;

async function post(url: string, method: string, params: unknown[] = []) {
  const id = nextId++;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    signal: AbortSignal.timeout(2_000),
  });
  return { id, res, text: await res.text() };
}

describe('the fault proxy in front of the local chains', () => {
  const proxies: FaultProxy[] = [];
  const proxyTo = async (target: string) => {
    const proxy = await startFaultProxy(target);
    proxies.push(proxy);
    return proxy;
  };
  after(async () => {
    for (const p of proxies) await p.close();
  });

  it('passes calls through to anvil and answers each scripted fault, then heals', async () => {
    const proxy = await proxyTo((await sharedLocalChain()).config.rpcUrl);
    const head = JSON.parse((await post(proxy.url, 'eth_blockNumber')).text) as { result: Hex };
    assert.match(head.result, /^0x[0-9a-f]+$/);

    proxy.inject('eth_blockNumber', { kind: 'rateLimit', retryAfterS: 3 }, 1);
    const limited = await post(proxy.url, 'eth_blockNumber');
    assert.equal(limited.res.status, 429);
    assert.equal(limited.res.headers.get('retry-after'), '3');

    proxy.inject('eth_blockNumber', { kind: 'serverError', status: 503 }, 1);
    assert.equal((await post(proxy.url, 'eth_blockNumber')).res.status, 503);

    proxy.inject('eth_blockNumber', { kind: 'malformed' }, 1);
    const garbage = await post(proxy.url, 'eth_blockNumber');
    assert.throws(() => JSON.parse(garbage.text) as unknown);

    proxy.inject('eth_chainId', { kind: 'wrongId' }, 1);
    const other = await post(proxy.url, 'eth_chainId');
    assert.notEqual((JSON.parse(other.text) as { id: unknown }).id, other.id);

    proxy.inject('eth_chainId', { kind: 'reset' }, 1);
    await assert.rejects(post(proxy.url, 'eth_chainId'));

    proxy.inject('eth_chainId', { kind: 'timeout' });
    await assert.rejects(post(proxy.url, 'eth_chainId'), /timeout|abort/i);
    proxy.heal();
    assert.equal((await post(proxy.url, 'eth_chainId')).res.status, 200);
    assert.deepEqual(proxy.calls.map((c) => c.fault).filter(Boolean), [
      'rateLimit',
      'serverError',
      'malformed',
      'wrongId',
      'reset',
      'timeout',
    ]);
  });

  it('pins a stale head, hides a mined transaction and drops a send without forwarding it', async () => {
    const chain = await sharedLocalChain();
    const proxy = await proxyTo(chain.config.rpcUrl);
    const direct = createPublicClient({ transport: http(chain.config.rpcUrl) });
    const viaProxy = createPublicClient({ transport: http(proxy.url, { retryCount: 0 }) });
    const before = await direct.getBlockNumber();

    const hash = await chain.faucet.sendTransaction({ to: chain.faucet.account.address, value: 1n });
    const mined = await receiptOf(direct, hash);

    proxy.inject('*', { kind: 'staleHead', head: before });
    assert.equal(await viaProxy.getBlockNumber({ cacheTime: 0 }), before);
    assert.equal((await viaProxy.getBlock({ blockTag: 'latest' })).number, before);
    const stale = JSON.parse((await post(proxy.url, 'eth_getTransactionReceipt', [hash])).text) as { result: unknown };
    assert.equal(stale.result, null, 'a node stuck before the block has not seen its receipt');
    proxy.heal();

    proxy.inject('eth_getTransactionReceipt', { kind: 'notFound', ids: [hash] });
    const hidden = JSON.parse((await post(proxy.url, 'eth_getTransactionReceipt', [hash])).text) as {
      result: unknown;
    };
    assert.equal(hidden.result, null);
    assert.equal(mined.status, 'success', 'the transaction exists all the same');
    proxy.heal();

    proxy.inject('eth_sendRawTransaction', { kind: 'dropSend' });
    const account = privateKeyToAccount(generatePrivateKey());
    const nonce = 0;
    const raw = await account.signTransaction({
      to: account.address,
      value: parseEther('0.000001'),
      nonce,
      gas: 21_000n,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 1n,
      chainId: chain.config.chainId,
    });
    const sent = JSON.parse((await post(proxy.url, 'eth_sendRawTransaction', [raw])).text) as { result: Hex };
    assert.deepEqual(proxy.dropped, [raw]);
    assert.equal(sent.result, keccak256(raw), 'answered with the hash, as a node would');
    assert.equal(await direct.getTransactionCount({ address: account.address }), nonce);
  });

  it('in front of the Solana RPC, answers a pinned slot and a dropped send with its signature', async () => {
    const solana = await sharedLocalSolana();
    const proxy = await proxyTo(solana.rpcUrl);
    const slot = (await rawSolanaRpc('getSlot')).result as number;
    proxy.inject('getSlot', { kind: 'staleHead', head: BigInt(slot) - 5n < 0n ? 0n : BigInt(slot) - 5n });
    const pinned = JSON.parse((await post(proxy.url, 'getSlot')).text) as { result: number };
    assert.equal(pinned.result, Math.max(0, slot - 5));
    const version = JSON.parse((await post(proxy.url, 'getVersion')).text) as { result: object };
    assert.ok(version.result, 'other methods pass through');

    proxy.inject('sendTransaction', { kind: 'dropSend' });
    const signed = await signedTransaction(await generateKeyPairSigner(), []);
    const sent = JSON.parse((await post(proxy.url, 'sendTransaction', [signed.wire, { encoding: 'base64' }])).text) as {
      result: string;
    };
    assert.equal(sent.result, signed.signature);
    assert.deepEqual(proxy.dropped, [signed.wire]);
  });
});
