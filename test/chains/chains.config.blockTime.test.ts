/** An EVM chain's block time is configuration: known chain ids keep theirs, an unknown one must say its own. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@paygate/server';
import { loadChainsFile, type EvmChainConfig } from '../../server/src/chains/chainsSetting.js';

const env = { PAYGATE_RELAYER_KEY: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' };

function chain(chainId: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    caip2: `eip155:${chainId}`,
    name: `Chain ${chainId}`,
    mode: 'live',
    rpcUrl: 'https://rpc.example',
    confirmations: 4,
    relayerKey: '${PAYGATE_RELAYER_KEY}',
    assets: [
      {
        caip19: `eip155:${chainId}/slip44:60`,
        address: null,
        decimals: 18,
        symbol: 'ETH',
        name: 'Ether',
        networkName: `Chain ${chainId}`,
        eip3009: false,
      },
    ],
    ...extra,
  };
}

describe('chains config: block time', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'paygate-blocktime-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const load = (doc: unknown): EvmChainConfig[] => {
    const path = join(dir, `chains-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify(doc));
    return loadChainsFile(path, env);
  };
  const blockTimeOf = (doc: unknown) => load(doc)[0]!.blockTimeS;

  it('keeps the known block time of a known chain id, and takes a chain file blockTimeS over it', () => {
    assert.equal(blockTimeOf({ chains: [chain(8453)] }), 2);
    assert.equal(blockTimeOf({ chains: [chain(1)] }), 12);
    assert.equal(blockTimeOf({ chains: [chain(8453, { blockTimeS: 1 })] }), 1);
    assert.equal(blockTimeOf({ chains: [chain(100, { blockTimeS: 5 })] }), 5);
  });

  it('refuses an unknown chain id without blockTimeS at load, naming the field', () => {
    assert.throws(
      () => load({ chains: [chain(100)] }),
      (err: unknown) =>
        err instanceof ConfigError && /chains\[0\]\.blockTimeS: .*eip155:100.*seconds per block/.test(err.message),
    );
    assert.throws(() => load({ chains: [chain(100, { blockTimeS: 0 })] }), /chains\[0\]\.blockTimeS/);
  });
});
