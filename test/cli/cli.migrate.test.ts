import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseJson, runCliInProcess } from '../helpers/cli.js';

describe('cli.migrate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paygate-cli-migrate-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('applies the migrations to a new SQLite file once', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'new.sqlite')}` };
    const first = parseJson<{ applied: string[] }>(await runCliInProcess(['migrate', '--json'], env));
    assert.ok(first.applied.includes('001_initial'));
    assert.deepEqual(parseJson(await runCliInProcess(['migrate', '--json'], env)), { applied: [] });
    const human = await runCliInProcess(['migrate'], env);
    assert.equal(human.code, 0);
    assert.equal(human.stdout, 'The database is up to date.\n');
  });
});
