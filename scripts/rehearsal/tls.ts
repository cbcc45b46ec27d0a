/**
 * A throwaway certificate authority and one server certificate it signs (for 127.0.0.1 and localhost), made with
 * openssl as an operator would make an internal CA. The proxy and the webhook receiver use the certificate; every
 * client of the run (the traffic, the worker processes delivering webhooks) trusts the CA through
 * NODE_EXTRA_CA_CERTS, as a host trusts its own CA, and nothing turns verification off.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Tls {
  ca: string;
  cert: string;
  key: string;
}

export function makeTls(dir: string): Tls {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const p = (f: string) => join(dir, f);
  const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', p('ca.key'), '-out', p('ca.pem')].concat([
      '-days',
      '2',
      '-subj',
      '/CN=Paygate rehearsal CA',
    ]),
  );
  openssl(
    ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', p('privkey.pem'), '-out', p('server.csr')].concat([
      '-subj',
      '/CN=localhost',
    ]),
  );
  writeFileSync(
    p('server.ext'),
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n',
  );
  openssl(
    ['x509', '-req', '-in', p('server.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-CAcreateserial'].concat([
      '-out',
      p('fullchain.pem'),
      '-days',
      '2',
      '-extfile',
      p('server.ext'),
    ]),
  );
  return { ca: p('ca.pem'), cert: p('fullchain.pem'), key: p('privkey.pem') };
}
