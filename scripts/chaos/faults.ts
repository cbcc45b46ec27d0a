/**
 * The chaos run's faults: every kind the fault proxy knows (test/helpers/faultProxy.ts), on a random endpoint of a
 * random chain, for a random number of calls, chosen by the run's PRNG; and a heal of a random endpoint now and then,
 * so that the gateway sees endpoints fail, recover, and fail again in another way.
 */
import type { Fault } from '../../test/helpers/faultProxy.js';
import type { Prng } from './prng.js';
import type { ChaosWorld } from './world.js';

export const FAULT_KINDS: Fault['kind'][] = [
  'latency',
  'timeout',
  'reset',
  'rateLimit',
  'serverError',
  'malformed',
  'wrongId',
  'staleHead',
  'notFound',
  'dropSend',
];

const METHODS = {
  evm: {
    any: ['*', 'eth_blockNumber', 'eth_getBlockByNumber', 'eth_getLogs', 'eth_call', 'eth_getTransactionReceipt'],
    lookup: ['eth_getTransactionReceipt', 'eth_getTransactionByHash'],
    send: 'eth_sendRawTransaction',
  },
  solana: {
    any: ['*', 'getSlot', 'getSignatureStatuses', 'getLatestBlockhash', 'getAccountInfo', 'getSignaturesForAddress'],
    lookup: ['getSignatureStatuses', 'getTransaction'],
    send: 'sendTransaction',
  },
};

export interface InjectedFault {
  chain: 'evm' | 'solana';
  kind: Fault['kind'];
}

/** Injects one fault; answers what it injected. */
export async function injectFault(world: ChaosWorld, rng: Prng): Promise<InjectedFault> {
  const { chain, proxy } = rng.pick(world.proxies);
  const kind = rng.pick(FAULT_KINDS);
  const methods = METHODS[chain];
  const times = rng.int(1, 12);
  switch (kind) {
    case 'latency':
      proxy.inject(rng.pick(methods.any), { kind, ms: rng.int(100, 3_000) }, times);
      break;
    case 'rateLimit':
      proxy.inject(rng.pick(methods.any), { kind, retryAfterS: rng.int(1, 3) }, times);
      break;
    case 'serverError':
      proxy.inject(rng.pick(methods.any), { kind, status: rng.pick([500, 502, 503, 504]) }, times);
      break;
    case 'staleHead': {
      const head =
        chain === 'evm'
          ? await world.chains.evm[0]!.clients.public.getBlockNumber({ cacheTime: 0 })
          : await world.chains.solana[0]!.rpc.getSlot({ commitment: 'confirmed' }).send();
      const behind = BigInt(rng.int(1, chain === 'evm' ? 20 : 60));
      proxy.inject('*', { kind, head: BigInt(head) > behind ? BigInt(head) - behind : 0n }, rng.int(10, 60));
      break;
    }
    case 'notFound':
      proxy.inject(rng.pick(methods.lookup), { kind }, times);
      break;
    case 'dropSend':
      proxy.inject(methods.send, { kind }, rng.int(1, 3));
      break;
    default:
      proxy.inject(rng.pick(methods.any), { kind }, times);
  }
  return { chain, kind };
}

export function healOne(world: ChaosWorld, rng: Prng): void {
  rng.pick(world.proxies).proxy.heal();
}

export function healAll(world: ChaosWorld): void {
  for (const p of world.proxies) p.proxy.heal();
}
