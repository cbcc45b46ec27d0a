/** docs/decisions.md §12: the dev routes exist only while this process runs local chains. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChains, type Chains } from '../../server/src/chains/index.js';
import { sharedLocalChain } from '../helpers/chain.js';
import { devServer, postJson } from './harness.js';

async function assertAbsent(url: string): Promise<void> {
  const list = await fetch(`${url}/v1/dev/chains`);
  assert.equal(list.status, 404);
  assert.equal(((await list.json()) as { code: string }).code, 'invalid_params');
  const faucet = await postJson(`${url}/v1/dev/faucet`, {
    account: 'eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    asset: 'native',
    amount: '1',
  });
  assert.equal(faucet.status, 404);
  assert.equal(faucet.body.code, 'invalid_params');
}

describe('dev routes without local chains', () => {
  it('404 invalid_params on a runtime that has no chains', async () => {
    const server = await devServer(null);
    try {
      await assertAbsent(server.url);
    } finally {
      await server.close();
    }
  });

  it('404 invalid_params when the chains come from a configuration file, even one naming chain 31337', async () => {
    const local = await sharedLocalChain();
    const dir = mkdtempSync(join(tmpdir(), 'paygate-dev-absent-'));
    let chains: Chains | null = null;
    try {
      const file = join(dir, 'chains.json');
      // The run's anvil as an operator's file would describe it (its relayer key is anvil's public test key).
      const { namespace: _namespace, chainId: _chainId, ...entry } = local.config;
      writeFileSync(file, JSON.stringify({ chains: [entry] }));
      chains = await startChains({ chains: file, chainEnv: {} });
      const server = await devServer(chains);
      try {
        await assertAbsent(server.url);
      } finally {
        await server.close();
      }
    } finally {
      await chains?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
