/**
 * The systemd units as systemd reads them (`systemd-analyze verify`), the Dockerfile as a thin shell around
 * deploy/install.sh, and deploy/.env.example against the configuration's own list of variables.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { variables } from '../../server/src/configVariables.js';
import { repoRoot } from '../helpers/cli.js';

const run = promisify(execFile);
const read = (path: string) => readFileSync(join(repoRoot, 'deploy', path), 'utf8');

describe('deploy.units', function () {
  this.timeout(180_000);
  const dir = mkdtempSync(join(tmpdir(), 'paygate-units-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('systemd-analyze verify accepts an instance of the API and of the worker unit', async () => {
    const instances = [
      ['paygate-api@.service', 'paygate-api@3001.service'],
      ['paygate-worker@.service', 'paygate-worker@1.service'],
    ];
    for (const [template, instance] of instances) {
      // verify checks that ExecStart's program exists: this machine's node stands in for /usr/bin/node.
      const unit = read(`systemd/${template}`).replaceAll('/usr/bin/node ', `${process.execPath} `);
      writeFileSync(join(dir, instance!), unit);
    }
    const { stdout, stderr } = await run('systemd-analyze', ['verify', '--man=no', ...instances.map((i) => i[1]!)], {
      cwd: dir,
    });
    assert.equal(stdout + stderr, '');
  });

  it('both units drain on SIGTERM before systemd kills, restart, and run hardened with secrets as credentials', () => {
    for (const unit of [read('systemd/paygate-api@.service'), read('systemd/paygate-worker@.service')]) {
      for (const line of [
        'Environment=PAYGATE_ENV=production',
        'Restart=always',
        'NoNewPrivileges=yes',
        'ProtectSystem=strict',
        'ReadWritePaths=/var/lib/paygate',
        'PrivateTmp=yes',
        'LoadCredential=encryption-key:/etc/paygate/secrets/encryption-key',
      ]) {
        assert.ok(
          unit.split('\n').some((l) => l.startsWith(line)),
          line,
        );
      }
      // Above PAYGATE_SHUTDOWN_TIMEOUT_MS's default of 25 s.
      assert.ok(Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1]) > 25);
      for (const v of variables.filter((v) => v.secret)) assert.match(unit, new RegExp(`${v.name}_FILE=%d/`));
    }
  });

  it('the Dockerfile builds with deploy/install.sh and nothing else', () => {
    const runs = read('Dockerfile')
      .split('\n')
      .filter((l) => /^RUN\b/.test(l))
      .map((l) => l.replace(/^RUN\s+/, ''));
    assert.ok(runs.includes('deploy/install.sh'), 'RUN deploy/install.sh');
    assert.equal(
      runs.filter((r) => /\b(npm|npx|tsc|vite|yarn|pnpm|node)\b/.test(r)).length,
      0,
      `no RUN but install.sh builds: ${runs.join(' | ')}`,
    );
  });

  it('the compose file runs PostgreSQL, API and workers from that Dockerfile, and the proxy', () => {
    const compose = parse(read('compose.yaml'), { merge: true }) as {
      services: Record<string, { build?: { dockerfile: string }; command?: string[]; image?: string }>;
    };
    const { services } = compose;
    assert.deepEqual(Object.keys(services).sort(), ['api', 'migrate', 'postgres', 'proxy', 'worker']);
    for (const name of ['api', 'worker', 'migrate']) {
      assert.equal(services[name]!.build?.dockerfile, 'deploy/Dockerfile', name);
    }
    assert.deepEqual(services.api!.command, ['start']);
    assert.deepEqual(services.worker!.command, ['worker']);
  });

  it('deploy/.env.example names every variable of the configuration', () => {
    const example = read('.env.example');
    const missing = variables
      .map((v) => v.name)
      .filter((name) => !new RegExp(`^#?${name}(_FILE)?=`, 'm').test(example));
    assert.deepEqual(missing, []);
  });
});
