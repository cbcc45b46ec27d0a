/**
 * The production rehearsal's short form (`npm run rehearsal -- --short`, scripts/rehearsal/): PostgreSQL, the chains
 * as their own process, 2 API processes and 2 workers from the systemd units' command lines, nginx with TLS from a
 * throwaway CA, an HTTPS webhook receiver, SDK traffic and a buyer paying the hosted checkout in Chromium through the
 * proxy (trusting the CA through its NSS database), through rolling restarts of the API processes and of the
 * workers, a 10 s PostgreSQL restart, and a backup taken under traffic restored into a new cluster: every row must
 * show no failure and nothing lost. The upgrade from the
 * previous tag is skipped here (a fresh CI clone may carry no tags); `npm run rehearsal` runs it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXCEPTIONS, unrunCommands } from '../../scripts/rehearsal/operationsCommands.js';
import { repoRoot } from '../helpers/cli.js';

describe('deploy.rehearsal short form', function () {
  // Three restarts of four processes and a 10 s outage, on a shared 2-core machine: minutes, not seconds.
  this.timeout(15 * 60_000);
  const dir = mkdtempSync(join(tmpdir(), 'paygate-rehearsal-test-'));
  // A failed run keeps its directory (the processes' logs): a crash seen once must be readable afterwards.
  after(function () {
    if (this.test?.parent?.tests.some((t) => t.state === 'failed')) console.log(`rehearsal logs kept in ${dir}/logs`);
    else rmSync(dir, { recursive: true, force: true });
  });

  it('rolling API and worker restarts, a PostgreSQL restart and a restore from backup under traffic, the hosted checkout paid in Chromium through the proxy: no failed request, nothing lost', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'scripts/rehearsal/run.ts'), '--short', '--no-upgrade', '--dir', dir],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } },
    );
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0, output.slice(-6000));
    const table = readFileSync(join(dir, 'table.md'), 'utf8');
    const rows = table.split('\n').filter((l) => /^\| \d\. /.test(l));
    assert.deepEqual(
      rows.map((r) => r.split('|')[1]!.trim().slice(0, 2)).sort(),
      ['1.', '2.', '3.', '4.', '5.'],
      table,
    );
    for (const row of rows) {
      const [, step, , failures, , , lost] = row.split('|').map((c) => c.trim());
      assert.deepEqual([failures, lost], ['0', '0'], `${step}\n${table}`);
    }
    const pages = rows.map((r) => Number(/(\d+) paid in the hosted checkout in Chromium/.exec(r)?.[1] ?? 0));
    assert.ok(
      pages.reduce((a, b) => a + b, 0) > 0,
      `no payment paid by the hosted checkout page in Chromium\n${table}`,
    );
  });

  it("OPERATIONS.md's commands: every one is in the rehearsal's command log, or a listed exception", () => {
    const log = readFileSync(join(dir, 'commands.log'), 'utf8');
    const guide = readFileSync(join(repoRoot, 'OPERATIONS.md'), 'utf8');
    assert.deepEqual(
      unrunCommands(guide, log, dir),
      [],
      `not run by the rehearsal; exceptions: ${EXCEPTIONS.map((e) => e.prefix).join(', ')}`,
    );
  });
});
