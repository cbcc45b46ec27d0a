/**
 * deploy/nginx's upstream under a rolling restart, with Debian's nginx and the shipped files (templated by the
 * rehearsal's own code, scripts/rehearsal/nginx.ts): two API processes (plain HTTP servers here, real sockets), the
 * first stopped and started again, then at once the second stopped, as `systemctl restart paygate-api@A` followed
 * by `…@B` does. The proxy must send every request to whichever process listens: no 502 "no live upstreams" because
 * it still remembers the first process's refused connection.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/rehearsal/net.js';
import { nginxConfig, startNginx, type Proxy } from '../../scripts/rehearsal/nginx.js';
import { makeTls } from '../../scripts/rehearsal/tls.js';
import { repoRoot } from '../helpers/cli.js';

async function backend(port: number, name: string): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(name));
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('deploy.nginx rolling restart', function () {
  this.timeout(180_000);
  const dir = mkdtempSync(join(tmpdir(), 'paygate-nginx-roll-'));
  let proxy: Proxy | null = null;
  const servers: Server[] = [];
  after(async () => {
    await proxy?.stop();
    await Promise.all(servers.filter((s) => s.listening).map(stop));
    rmSync(dir, { recursive: true, force: true });
  });

  it('a restart of one API process then the other at once: every request answered by the process that listens', async () => {
    const tls = makeTls(join(dir, 'tls'));
    const ca = readFileSync(tls.ca);
    const [a, b, https, http] = [await freePort(), await freePort(), await freePort(), await freePort()];
    servers.push(await backend(a, 'A'), await backend(b, 'B'));
    proxy = await startNginx(nginxConfig(repoRoot, dir, tls, { http, https }, [a, b]), dir, https);
    const call = (method: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: https, path: '/v1/merchant/payment', method, ca }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end(method === 'POST' ? '{}' : undefined);
      });
    const answers = async (n: number) => {
      const out: string[] = [];
      for (let i = 0; i < n; i++) for (const m of ['POST', 'GET']) out.push(`${(await call(m)).status}`);
      return out;
    };
    await nginxUp(call);

    // A stops: its refused connection is passed on to B.
    await stop(servers[0]!);
    assert.deepEqual(new Set(await answers(4)), new Set(['200']));
    // A is back, and B stops right away (well within nginx's fail_timeout of the old configuration).
    servers[0] = await backend(a, 'A');
    await stop(servers[1]!);
    const after = await answers(4);
    assert.deepEqual(after, Array(8).fill('200'), `answers after the second stop: ${after.join(' ')}`);
    assert.equal((await call('GET')).body, 'A');
  });
});

/** nginx answers once its workers listen (it starts in the background). */
async function nginxUp(call: (m: string) => Promise<{ status: number }>): Promise<void> {
  const { eventually } = await import('../helpers/wait.js');
  await eventually('nginx listening', () =>
    call('GET').then(
      (r) => r.status === 200,
      () => false,
    ),
  );
}
