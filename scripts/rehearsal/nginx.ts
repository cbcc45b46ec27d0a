/**
 * Debian's nginx with deploy/nginx/paygate.conf and upstream.conf as shipped; only what an operator edits is
 * templated: the listen ports (free loopback ports instead of 80/443, IPv4 only), the certificate paths and the
 * upstream's server lines (one per API instance). The access log records `$upstream_addr`, so a request nginx passed
 * on to a second process (a refused connection during a restart) is counted as a retry.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tls } from './tls.js';

export const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

export interface Proxy {
  httpsPort: number;
  accessLog: string;
  /** Requests nginx sent to more than one upstream so far. */
  retried(): number;
  stop(): Promise<void>;
}

export function nginxConfig(
  repo: string,
  dir: string,
  tls: Tls,
  ports: { http: number; https: number },
  api: number[],
) {
  const site = readFileSync(join(repo, 'deploy/nginx/paygate.conf'), 'utf8')
    .replace(/^\s*listen \[::\].*$/gm, '')
    .replace(/listen 80;/, `listen 127.0.0.1:${ports.http};`)
    .replace(/listen 443 ssl http2;/, `listen 127.0.0.1:${ports.https} ssl http2;`)
    .replaceAll('/etc/ssl/paygate/fullchain.pem', tls.cert)
    .replaceAll('/etc/ssl/paygate/privkey.pem', tls.key);
  const servers = readFileSync(join(repo, 'deploy/nginx/upstream.conf'), 'utf8').replace(
    /^(\s*)server 127\.0\.0\.1:3001 (.*)$[\s\S]*?^\s*server 127\.0\.0\.1:3002 .*$/m,
    (_all, indent: string, rest: string) => api.map((p) => `${indent}server 127.0.0.1:${p} ${rest}`).join('\n'),
  );
  if (!site.includes(`:${ports.https} ssl`) || !api.every((p) => servers.includes(`127.0.0.1:${p} `))) {
    throw new Error('deploy/nginx changed shape: the rehearsal could not template its ports');
  }
  writeFileSync(join(dir, 'paygate.conf'), site);
  writeFileSync(join(dir, 'upstream.conf'), servers);
  for (const t of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, `tmp-${t}`), { recursive: true });
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log warn;`,
      'events { worker_connections 1024; }',
      'http {',
      `  log_format upstreams '$status $request_method "$upstream_addr" $request_time $uri';`,
      `  access_log ${dir}/access.log upstreams;`,
      ...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (t) => `  ${t === 'body' ? 'client_body' : t}_temp_path ${dir}/tmp-${t};`,
      ),
      `  include ${dir}/upstream.conf;`,
      `  include ${dir}/paygate.conf;`,
      '}',
    ].join('\n'),
  );
  return join(dir, 'nginx.conf');
}

export async function startNginx(conf: string, dir: string, httpsPort: number): Promise<Proxy> {
  const args = ['-p', dir, '-e', join(dir, 'error.log'), '-c', conf];
  const test = spawnSync(NGINX, ['-t', ...args], { encoding: 'utf8' });
  if (test.status !== 0) throw new Error(`nginx -t: ${test.stderr}`);
  const child: ChildProcess = spawn(NGINX, args, { stdio: 'ignore' });
  const accessLog = join(dir, 'access.log');
  return {
    httpsPort,
    accessLog,
    retried() {
      let text = '';
      try {
        text = readFileSync(accessLog, 'utf8');
      } catch {
        return 0;
      }
      return text.split('\n').filter((l) => /"[^"]*, [^"]*"/.test(l)).length;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGQUIT');
      await exited;
    },
  };
}
