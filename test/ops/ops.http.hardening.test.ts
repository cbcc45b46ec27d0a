/**
 * The request path's protections, over real sockets: security headers, the body limit, request timeouts (503 with a
 * contract ErrorResponse on every surface), CORS open on the gateway and closed elsewhere, and `trust proxy`.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { createApp, createRuntime, type Runtime } from '@paygate/server';
import { testConfig } from '../helpers/config.js';
import { apis, contractAjv, loadBundled, resolvePointer, type JsonObject } from '../helpers/contracts.js';
import { createMerchantAccount, type MerchantAccount } from '../helpers/fixtures.js';
import { listen, type Listening } from '../helpers/http.js';
import { captureLogs, type CapturedLogs } from '../helpers/logs.js';
import { testClock } from '../helpers/runtime.js';
import { expectError } from '../merchant/harness.js';
import { eventually } from '../helpers/wait.js';

interface Started {
  runtime: Runtime;
  server: Listening;
  logs: CapturedLogs;
  account: MerchantAccount;
  close(): Promise<void>;
}

async function start(config: Record<string, string> = {}): Promise<Started> {
  const logs = captureLogs('trace');
  const runtime = await createRuntime({
    config: testConfig({ PAYGATE_RATE_LIMIT_RPS: '1000000', PAYGATE_RATE_LIMIT_BURST: '1000000', ...config }),
    logger: logs.logger,
    now: testClock().now,
  });
  const server = await listen(createApp({ runtime, validateResponses: true }));
  const account = await createMerchantAccount(runtime);
  return {
    runtime,
    server,
    logs,
    account,
    async close() {
      await server.close();
      await runtime.close();
    },
  };
}

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends the headers and the start of a body, then stalls: a client whose upload stopped. */
function stalledUpload(url: string, method: string, path: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}${path}`,
      { method, headers: { 'content-type': 'application/json', 'content-length': '1000' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => {
          resolve({ status: res.statusCode!, headers: res.headers, body });
          req.destroy();
        });
      },
    );
    req.on('error', reject);
    req.write('{"partial":');
  });
}

/** The first operation of a contract that takes a body, and the schema of its 503 answer. */
function operationWithBody(api: (typeof apis)[number]) {
  const doc = loadBundled(api);
  for (const [path, item] of Object.entries(doc.paths as JsonObject)) {
    for (const [method, op] of Object.entries(item as JsonObject)) {
      const operation = op as JsonObject;
      if (typeof operation !== 'object' || !operation.requestBody) continue;
      let response = (operation.responses as JsonObject)['503'] as JsonObject;
      assert.ok(response, `${api} ${method} ${path} lists 503`);
      const ref = typeof response.$ref === 'string' ? response.$ref : null;
      if (ref) response = resolvePointer(doc, ref) as JsonObject;
      const pointer = ref ? `${ref}/content/application~1json/schema` : null;
      const validate = contractAjv(doc).compile(
        pointer
          ? { $ref: `contract${pointer}` }
          : (((response.content as JsonObject)['application/json'] as JsonObject).schema as object),
      );
      return {
        method: method.toUpperCase(),
        path: path.replace(/\{[^}]+\}/g, 'pay_000000000000000000000000'),
        validate,
      };
    }
  }
  throw new Error(`${api} has no operation with a body`);
}

describe('ops.http.hardening', () => {
  let s: Started;
  before(async () => {
    s = await start();
  });
  after(() => s.close());

  const merchantHeaders = () => ({
    'Api-Key': s.account.testKey,
    'Merchant-Id': s.account.merchantId,
    'Content-Type': 'application/json',
  });

  it('sends security headers, with a CSP that allows nothing on API answers', async () => {
    for (const path of ['/healthz', '/v1/merchant/payments', '/no/such/route']) {
      const res = await fetch(`${s.server.url}${path}`, { headers: merchantHeaders() });
      const csp = res.headers.get('Content-Security-Policy')!;
      assert.match(csp, /default-src 'none'/, path);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.equal(res.headers.get('X-Content-Type-Options'), 'nosniff');
      assert.match(res.headers.get('Strict-Transport-Security')!, /max-age=\d+/);
      assert.equal(res.headers.get('X-Frame-Options'), 'SAMEORIGIN');
      assert.equal(res.headers.get('X-Powered-By'), null);
    }
  });

  it('leaves out of API answers the headers that only concern HTML documents', async () => {
    const res = await fetch(`${s.server.url}/v1/merchant/payments`, { headers: merchantHeaders() });
    assert.equal(res.headers.get('Cross-Origin-Resource-Policy'), 'same-origin');
    for (const header of [
      'Cross-Origin-Opener-Policy',
      'Referrer-Policy',
      'Origin-Agent-Cluster',
      'X-DNS-Prefetch-Control',
      'X-Download-Options',
      'X-Permitted-Cross-Domain-Policies',
      'X-XSS-Protection',
    ]) {
      assert.equal(res.headers.get(header), null, header);
    }
  });

  it('gives /docs a CSP that allows its inline script and styles and nothing external', async () => {
    for (const path of ['/docs', '/docs/merchant']) {
      const res = await fetch(`${s.server.url}${path}`);
      const csp = res.headers.get('Content-Security-Policy')!;
      const directives = Object.fromEntries(
        csp.split(';').map((d) => {
          const [name, ...sources] = d.trim().split(/\s+/);
          return [name, sources];
        }),
      );
      assert.deepEqual(directives['default-src'], ["'none'"]);
      assert.deepEqual(directives['script-src'], ["'unsafe-inline'"]);
      assert.deepEqual(directives['style-src'], ["'unsafe-inline'"]);
      for (const sources of Object.values(directives) as string[][]) {
        for (const source of sources) assert.doesNotMatch(source, /^(https?:|\*|wss?:)/, `${path}: ${csp}`);
      }
    }
  });

  it('refuses a body over 256 KiB with 413 invalid_params, on the merchant and the gateway', async () => {
    const body = JSON.stringify({
      amount: { unit: 'iso4217/USD', value: '100' },
      referenceId: 'x'.repeat(300 * 1024),
    });
    const merchant = await fetch(`${s.server.url}/v1/merchant/payment`, {
      method: 'POST',
      headers: merchantHeaders(),
      body,
    });
    await expectError(merchant, 413, 'invalid_params');
    const gateway = await fetch(`${s.server.url}/v1/gateway/payment/pay_000000000000000000000000/options`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
    });
    await expectError(gateway, 413, 'invalid_params');
  });

  describe('CORS', () => {
    const preflight = (path: string, origin = 'https://wallet.example', server = s.server) =>
      fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'api-key,content-type,svc-version,x-request-id',
        },
      });

    it('is open on the gateway: a preflight is answered and answers carry Allow-Origin *', async () => {
      const res = await preflight('/v1/gateway/payment/pay_000000000000000000000000/confirm');
      assert.equal(res.status, 204);
      assert.equal(res.headers.get('Access-Control-Allow-Origin'), '*');
      assert.match(res.headers.get('Access-Control-Allow-Methods')!, /\bPOST\b/);
      const allowed = res.headers.get('Access-Control-Allow-Headers')!.toLowerCase().split(',');
      for (const header of [
        'api-key',
        'app-id',
        'client-id',
        'svc-version',
        'sdk-name',
        'sdk-version',
        'sdk-platform',
        'content-type',
        'x-request-id',
      ])
        assert.ok(allowed.includes(header), header);
      assert.equal(res.headers.get('Access-Control-Max-Age'), '600');

      const answer = await fetch(`${s.server.url}/v1/gateway/payment/pay_000000000000000000000000`, {
        headers: { Origin: 'https://wallet.example' },
      });
      assert.equal(answer.headers.get('Access-Control-Allow-Origin'), '*');
      assert.match(answer.headers.get('Access-Control-Expose-Headers')!, /X-Request-Id/);
    });

    for (const path of ['/v1/merchant/payment', '/v1/payments', '/v1/dashboard/webhook-endpoint']) {
      it(`is closed on ${path}: no Allow-Origin, and a preflight gets no allow headers`, async () => {
        const res = await preflight(path);
        assert.notEqual(res.status, 204);
        assert.equal(res.headers.get('Access-Control-Allow-Origin'), null);
        assert.equal(res.headers.get('Access-Control-Allow-Headers'), null);
        assert.equal(res.headers.get('Access-Control-Allow-Methods'), null);
        const answer = await fetch(`${s.server.url}${path}`, {
          headers: { ...merchantHeaders(), Origin: 'https://wallet.example' },
        });
        assert.ok(answer.status < 500);
        assert.equal(answer.headers.get('Access-Control-Allow-Origin'), null);
      });
    }

    it('allows only the listed origins when PAYGATE_CORS_ORIGINS names them', async () => {
      const listed = await start({ PAYGATE_CORS_ORIGINS: 'https://wallet.example, https://other.example' });
      try {
        const path = '/v1/gateway/payment/pay_000000000000000000000000/confirm';
        const ok = await preflight(path, 'https://other.example', listed.server);
        assert.equal(ok.headers.get('Access-Control-Allow-Origin'), 'https://other.example');
        assert.match(ok.headers.get('Vary')!, /Origin/);
        const other = await preflight(path, 'https://evil.example', listed.server);
        assert.equal(other.headers.get('Access-Control-Allow-Origin'), null);
      } finally {
        await listed.close();
      }
    });
  });

  describe('trust proxy', () => {
    const ipOf = async (started: Started) => {
      const res = await fetch(`${started.server.url}/v1/merchant/payments`, {
        headers: {
          'Api-Key': started.account.testKey,
          'Merchant-Id': started.account.merchantId,
          'X-Forwarded-For': '203.0.113.7',
          'X-Request-Id': 'ip-check',
        },
      });
      await res.arrayBuffer();
      const line = started.logs.lines().find((l) => l.msg === 'request' && l.reqId === 'ip-check');
      return line?.ip;
    };

    it('ignores X-Forwarded-For by default', async () => {
      assert.match(String(await ipOf(s)), /^(::ffff:)?127\.0\.0\.1$/);
    });

    it('with PAYGATE_TRUST_PROXY=true (outside production) trusts any X-Forwarded-For, and says so at start', async () => {
      const everyHop = await start({ PAYGATE_TRUST_PROXY: 'true' });
      try {
        assert.equal(await ipOf(everyHop), '203.0.113.7', 'any client names its own address');
        const warning = everyHop.logs.lines().find((l) => l.variable === 'PAYGATE_TRUST_PROXY');
        assert.equal(warning?.level, 40);
        assert.match(String(warning.msg), /trusts every hop.*per-address limits.*hop count/);
      } finally {
        await everyHop.close();
      }
    });

    it('honours X-Forwarded-For from a configured proxy', async () => {
      const proxied = await start({ PAYGATE_TRUST_PROXY: 'loopback' });
      try {
        assert.equal(await ipOf(proxied), '203.0.113.7');
      } finally {
        await proxied.close();
      }
    });
  });
});

describe('ops.http.timeout', () => {
  let s: Started;
  before(async () => {
    s = await start({ PAYGATE_REQUEST_TIMEOUT_MS: '150' });
  });
  after(() => s.close());

  // Not the ops contract: probes and scrapes are answered before the request timeout (http/ops.ts), and take no body.
  for (const api of apis.filter((a) => a !== 'ops')) {
    it(`${api}: a request unanswered in time gets 503 internal_error, an ErrorResponse the contract lists`, async () => {
      const { method, path, validate } = operationWithBody(api);
      const started = performance.now();
      const answer = await stalledUpload(s.server.url, method, path);
      assert.ok(performance.now() - started < 1000);
      assert.equal(answer.status, 503);
      const body = JSON.parse(answer.body) as unknown;
      assert.ok(validate(body), JSON.stringify(validate.errors));
      assert.deepEqual(body, {
        code: 'internal_error',
        message: 'The request took too long and was abandoned; retry.',
      });
      assert.equal(answer.headers.connection, 'close');
      assert.ok(answer.headers['x-request-id']);
    });
  }

  it('merchant: a create stuck on the database is answered 503; it may still land, and a retry replays it', async () => {
    // The embedded database has one connection: holding it in a transaction stalls every query behind it.
    const trx = await s.runtime.db.knex.transaction();
    const send = (requestId: string) =>
      fetch(`${s.server.url}/v1/merchant/payment`, {
        method: 'POST',
        headers: {
          'Api-Key': s.account.testKey,
          'Merchant-Id': s.account.merchantId,
          'Content-Type': 'application/json',
          'Idempotency-Key': 'stuck-create',
          'X-Request-Id': requestId,
        },
        body: JSON.stringify({ amount: { unit: 'iso4217/USD', value: '100' }, referenceId: 'stuck' }),
      });
    let res: Response;
    try {
      res = await send('stuck-1');
    } finally {
      await trx.rollback();
    }
    await expectError(res, 503, 'internal_error');
    // The handler goes on once the database is free; its answer has nowhere to go.
    await eventually(
      'the create to finish after the timeout',
      async () => (await s.runtime.db.knex('payments').where({ reference_id: 'stuck' })).length > 0,
    );
    const retry = await send('stuck-2');
    assert.equal(retry.status, 201);
    assert.equal(retry.headers.get('Idempotent-Replayed'), 'true');
    assert.equal((await s.runtime.db.knex('payments').where({ reference_id: 'stuck' })).length, 1);

    const lines = s.logs.lines().filter((l) => l.reqId === 'stuck-1');
    assert.deepEqual(lines.map((l) => l.msg).slice(0, 2), ['request timed out', 'request']);
    assert.equal(lines[1]!.status, 503);
    assert.ok(!s.logs.lines().some((l) => l.msg === 'unhandled error'));
  });
});
