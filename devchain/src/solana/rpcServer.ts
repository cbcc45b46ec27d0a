/**
 * The local Solana JSON-RPC 2.0 endpoint: node:http on a loopback port, POST bodies with one request or a batch,
 * answered by `rpcMethods` over the ledger. `GET /health` answers `ok`, as Agave's does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RPC_ERROR, RpcError } from './errors.js';
import { parseJsonWithBigInts, stringifyJsonWithBigInts } from './json.js';
import { rpcMethods, type RpcContext } from './rpcMethods.js';

/** Agave's MAX_REQUEST_BODY_SIZE. */
const MAX_BODY_BYTES = 50 * 1024;

export interface RpcServerOptions {
  /** Loopback by default; the endpoint is for this machine only. */
  host?: string;
  /** 0 (a free port) by default. */
  port?: number;
}

export interface RunningRpcServer {
  url: string;
  close(): Promise<void>;
}

interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

function errorResponse(id: unknown, err: RpcError) {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.data !== undefined) error.data = err.data;
  return { jsonrpc: '2.0', error, id };
}

/** Answers one request object; `null` for a notification (no id), which JSON-RPC answers with nothing. */
async function answer(request: unknown, ctx: RpcContext): Promise<unknown> {
  const req = (request ?? {}) as JsonRpcRequest;
  const id = typeof req.id === 'string' || typeof req.id === 'number' || typeof req.id === 'bigint' ? req.id : null;
  if (typeof request !== 'object' || request === null || Array.isArray(request) || req.jsonrpc !== '2.0') {
    return errorResponse(id, new RpcError(RPC_ERROR.invalidRequest, 'Invalid request'));
  }
  if (typeof req.method !== 'string')
    return errorResponse(id, new RpcError(RPC_ERROR.invalidRequest, 'Invalid request'));
  const method = Object.hasOwn(rpcMethods, req.method) ? rpcMethods[req.method] : undefined;
  let response: unknown;
  if (!method) {
    response = errorResponse(id, new RpcError(RPC_ERROR.methodNotFound, 'Method not found'));
  } else if (req.params !== undefined && !Array.isArray(req.params)) {
    response = errorResponse(id, new RpcError(RPC_ERROR.invalidParams, 'Invalid params: expected an array'));
  } else {
    try {
      response = { jsonrpc: '2.0', result: await method((req.params as unknown[]) ?? [], ctx), id };
    } catch (err) {
      const rpcError =
        err instanceof RpcError
          ? err
          : new RpcError(RPC_ERROR.internalError, `Internal error: ${(err as Error).message}`);
      response = errorResponse(id, rpcError);
    }
  }
  return req.id === undefined ? null : response;
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(req: IncomingMessage, res: ServerResponse, ctx: RpcContext): Promise<void> {
  if (req.method === 'GET' && req.url === '/health') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const body = await readBody(req);
  if (body === null) {
    res.writeHead(413).end();
    return;
  }
  let parsed: unknown;
  try {
    parsed = parseJsonWithBigInts(body);
  } catch {
    parsed = undefined;
  }
  let response: unknown;
  if (parsed === undefined) {
    response = errorResponse(null, new RpcError(RPC_ERROR.parseError, 'Parse error'));
  } else if (Array.isArray(parsed)) {
    const answers: unknown[] = [];
    // One after another, as a batch on one node would see them.
    for (const request of parsed) answers.push(await answer(request, ctx));
    const kept = answers.filter((a) => a !== null);
    response =
      parsed.length === 0 ? errorResponse(null, new RpcError(RPC_ERROR.invalidRequest, 'Invalid request')) : kept;
    if (parsed.length > 0 && kept.length === 0) response = null;
  } else {
    response = await answer(parsed, ctx);
  }
  if (response === null) {
    res.writeHead(200).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(stringifyJsonWithBigInts(response));
}

/** Starts the endpoint; `close()` stops it, ending kept-alive connections too. */
export async function startRpcServer(ctx: RpcContext, options: RpcServerOptions = {}): Promise<RunningRpcServer> {
  const server = createServer((req, res) => {
    handle(req, res, ctx).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      (closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      })),
  };
}
