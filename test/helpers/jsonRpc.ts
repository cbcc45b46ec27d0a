/**
 * A tiny real JSON-RPC server in the shape of an EVM node (`eth_chainId`), and a fetch client for it: what a chain
 * adapter's calls and readiness check look like on the wire, without a chain.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JsonRpcServer {
  url: string;
  calls: string[];
  /** While true, requests are held unanswered (a node that stopped responding). */
  hang: boolean;
  close(): Promise<void>;
}

export async function startJsonRpcServer(chainIdHex = '0x7a69'): Promise<JsonRpcServer> {
  const rpc = { calls: [] as string[], hang: false } as JsonRpcServer;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      if (rpc.hang) return;
      const call = JSON.parse(body) as { id: number; method: string };
      rpc.calls.push(call.method);
      const answer =
        call.method === 'eth_chainId'
          ? { jsonrpc: '2.0', id: call.id, result: chainIdHex }
          : { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'Method not found' } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  rpc.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  rpc.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return rpc;
}

let nextId = 1;

/** One JSON-RPC call; throws on a transport error, a non-2xx answer or a JSON-RPC error. */
export async function jsonRpcCall(url: string, method: string, signal?: AbortSignal): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: [] }),
    signal,
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`JSON-RPC error: ${body.error.message}`);
  return body.result;
}

/** A loopback port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
