/**
 * anvil moves the states it no longer keeps in memory (beyond about 256 blocks) to disk, by default under
 * ~/.foundry/anvil/tmp, and never removes them: 51 GB had gathered there on a development machine after two days of
 * test runs. Each anvil Paygate starts gets a directory of its own, removed when anvil exits.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { spawnAnvil } from '@paygate/devchain';
import { eventually } from '../helpers/wait.js';

const MNEMONIC = 'test test test test test test test test test test test junk';

describe('devchain.anvil state cache', () => {
  it('a chain mined past what anvil holds in memory writes its states to its own directory, removed when it stops', async () => {
    const anvil = await spawnAnvil({ chainId: 31337, mnemonic: MNEMONIC });
    let stopped = false;
    try {
      const mine = await fetch(anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x200'] }),
      });
      assert.equal(mine.status, 200);
      const written = await eventually('anvil to move states to its cache directory', () => {
        const files = readdirSync(anvil.cacheDir, { recursive: true });
        return files.some((f) => String(f).endsWith('.json')) && files;
      });
      assert.ok(written.length > 0);
      // Nothing of this chain under anvil's default directory.
      const foundry = join(homedir(), '.foundry/anvil/tmp');
      const names = new Set(written.map((f) => basename(String(f))));
      const elsewhere = existsSync(foundry)
        ? readdirSync(foundry, { recursive: true }).filter((f) => names.has(basename(String(f))))
        : [];
      assert.deepEqual(elsewhere, []);
      await anvil.stop();
      stopped = true;
      await eventually('the cache directory to be removed', () => !existsSync(anvil.cacheDir));
    } finally {
      if (!stopped) await anvil.stop();
    }
  });
});
