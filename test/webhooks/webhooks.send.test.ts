import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendWebhook } from '../../server/src/webhooks/send.js';
import { checkWebhookUrl } from '../../server/src/webhooks/ssrf.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

describe('webhooks.send', () => {
  let server: Server;
  let handler: Handler = (_req, res) => res.end();
  let base: string;
  const hits: string[] = [];

  before(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      handler(req, res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  beforeEach(() => {
    hits.length = 0;
  });

  const send = async (path = '/hook', timeoutMs = 2000) =>
    sendWebhook({
      target: await checkWebhookUrl(`${base}${path}`, { mode: 'test', allowLoopback: true }),
      headers: { 'webhook-id': 'evt_1', 'user-agent': 'Paygate-Webhooks/1' },
      body: '{"hello":"world"}',
      timeoutMs,
    });

  it('a 2xx is delivered, with headers and body as sent', async () => {
    let seen: { headers: IncomingMessage['headers']; body: string } | null = null;
    handler = (req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen = { headers: req.headers, body };
        res.writeHead(204).end();
      });
    };
    const result = await send();
    assert.equal(result.delivered, true);
    assert.equal(result.status, 204);
    assert.equal(result.error, null);
    assert.equal(seen!.body, '{"hello":"world"}');
    assert.equal(seen!.headers['webhook-id'], 'evt_1');
    assert.equal(seen!.headers['content-type'], 'application/json');
  });

  it('a 500 is a failure that keeps the first 4 KB of the answer', async () => {
    handler = (_req, res) => res.writeHead(500).end('x'.repeat(10_000));
    const result = await send();
    assert.equal(result.delivered, false);
    assert.equal(result.status, 500);
    assert.equal(result.responseBody?.length, 4096);
  });

  it('a 302 is a failure and the second hop is never visited', async () => {
    handler = (req, res) => {
      if (req.url === '/hook') res.writeHead(302, { location: '/second' }).end();
      else res.writeHead(200).end();
    };
    const result = await send();
    assert.equal(result.delivered, false);
    assert.equal(result.status, 302);
    assert.match(result.error!, /redirect to \/second not followed/);
    assert.deepEqual(hits, ['/hook']);
  });

  it('a slow receiver times out', async () => {
    handler = () => undefined; // never answers
    const result = await send('/hook', 200);
    assert.equal(result.delivered, false);
    assert.equal(result.status, null);
    assert.match(result.error!, /timed out after 200 ms/);
  });

  it('a connection reset is a failure', async () => {
    handler = (req) => req.socket.destroy();
    const result = await send();
    assert.equal(result.delivered, false);
    assert.equal(result.status, null);
    assert.match(result.error!, /connection reset|socket hang up/);
  });

  it('connects to the checked address even if the name would now resolve elsewhere', async () => {
    handler = (_req, res) => res.writeHead(200).end('ok');
    const port = (server.address() as AddressInfo).port;
    // A name that the real resolver cannot answer: only the pinned address makes this work.
    const target = await checkWebhookUrl(`http://pinned.invalid:${port}/hook`, {
      mode: 'test',
      allowLoopback: true,
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const result = await sendWebhook({ target, headers: {}, body: '{}', timeoutMs: 2000 });
    assert.equal(result.delivered, true);
  });
});
