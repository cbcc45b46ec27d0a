/**
 * deploy/nginx/paygate.conf as Debian's nginx reads it (`nginx -t`), with a throwaway self-signed certificate in place
 * of the operator's, and its numbers held to the server's: body limit, long-poll timeouts, retries.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BODY_LIMIT } from '../../server/src/app.js';
import { repoRoot } from '../helpers/cli.js';

const run = promisify(execFile);
const conf = readFileSync(join(repoRoot, 'deploy/nginx/paygate.conf'), 'utf8');
const upstream = readFileSync(join(repoRoot, 'deploy/nginx/upstream.conf'), 'utf8');
/** The directives alone: comments may name what the configuration deliberately leaves out. */
const directives = conf.replace(/#.*$/gm, '');
const nginx = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

/** The seconds of a directive in the proxied location, e.g. `proxy_read_timeout 35s;` → 35. */
function seconds(directive: string): number {
  const match = new RegExp(`^\\s*${directive} (\\d+)s;`, 'm').exec(directives);
  assert.ok(match, `${directive} is set`);
  return Number(match[1]);
}

describe('deploy.nginx', function () {
  this.timeout(180_000);
  const dir = mkdtempSync(join(tmpdir(), 'paygate-nginx-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('nginx -t accepts the configuration with a self-signed certificate', async () => {
    await run('openssl', [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'],
      ...['-subj', '/CN=pay.example.com', '-keyout', join(dir, 'privkey.pem'), '-out', join(dir, 'fullchain.pem')],
    ]);
    writeFileSync(join(dir, 'paygate.conf'), conf.replaceAll('/etc/ssl/paygate/', `${dir}/`));
    writeFileSync(join(dir, 'upstream.conf'), upstream);
    writeFileSync(
      join(dir, 'nginx.conf'),
      [
        `pid ${dir}/nginx.pid;`,
        `error_log ${dir}/error.log;`,
        'events {}',
        `http { access_log off; include ${dir}/upstream.conf; include ${dir}/paygate.conf; }`,
      ].join('\n'),
    );
    const { stderr } = await run(nginx, ['-t', '-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')]);
    assert.match(stderr, /syntax is ok/);
    assert.match(stderr, /test is successful/);
  });

  it('refuses the bodies the server refuses, and outwaits the longest long poll and the request timeout', () => {
    assert.equal(BODY_LIMIT, '256kb');
    assert.match(directives, /^\s*client_max_body_size 256k;/m);
    // maxPollMs ≤ 25 s < PAYGATE_REQUEST_TIMEOUT_MS (30 s default) < nginx's wait.
    assert.ok(seconds('proxy_read_timeout') > 30);
    assert.ok(seconds('proxy_send_timeout') > 30);
  });

  it('retries only what never reached a process, never a timeout or a non-idempotent method once sent', () => {
    assert.match(directives, /^\s*proxy_next_upstream error;/m);
    assert.doesNotMatch(directives, /non_idempotent|proxy_next_upstream [^;]*timeout/);
    assert.match(directives, /Strict-Transport-Security "max-age=\d+; includeSubDomains" always/);
    assert.match(directives, /proxy_set_header X-Forwarded-For \$remote_addr;/);
    assert.match(directives, /proxy_set_header X-Forwarded-Proto \$scheme;/);
    assert.ok((upstream.match(/^\s*server 127\.0\.0\.1:\d+/gm) ?? []).length >= 2, 'several API instances upstream');
  });
});
