import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real HTTP webhook receiver on 127.0.0.1 whose behaviour a test can change between requests. */
export interface Receiver {
  url: string;
  received: Received[];
  respond: (req: IncomingMessage, res: ServerResponse, body: string) => void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver = {
    received: [] as Received[],
    respond: ((_req, res) => res.writeHead(200).end('ok')) as Receiver['respond'],
  } as Receiver;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      receiver.received.push({ path: req.url ?? '', headers: req.headers, body });
      receiver.respond(req, res, body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
