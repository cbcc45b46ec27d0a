/**
 * The contract validator as the server assembles it (http/openapi.ts `contractValidator`: express-openapi-validator's
 * stages run directly once the contract has loaded) against the library's own `middleware()` with the same options:
 * on the same requests, to every operation of every contract and to paths and methods no contract defines, both
 * give the same answers, whether the request passes (the matched route, the coerced parameters and query, the body)
 * or is refused (status, message and errors), and the same verdicts on the answers (response validation).
 */
import assert from 'node:assert/strict';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import {
  contractValidator,
  loadContract,
  ownsPath,
  validatorOptions,
  type ApiName,
} from '../../server/src/http/openapi.js';
import { contractRoutes, matchRoute, type ContractRoute } from '../../server/src/http/operations.js';
import { listen, type Listening } from '../helpers/http.js';

const APIS: ApiName[] = ['gateway', 'merchant', 'dashboard', 'dev', 'ops'];
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The operation `surfaces` puts on `res.locals.operation` (http/surface.ts), which the validator's route lookup starts from. */
type Hint = (req: express.Request) => ContractRoute | undefined;

function appWith(validator: RequestHandler | RequestHandler[], hint?: Hint): express.Express {
  const app = express();
  // As server/src/app.ts sets them: the validator matches paths by these settings.
  app.set('strict routing', true);
  app.set('case sensitive routing', true);
  app.set('query parser', 'extended');
  app.use(express.json());
  if (hint)
    app.use((req, res, next) => {
      const operation = hint(req);
      if (operation) res.locals.operation = operation;
      next();
    });
  app.use(validator);
  // The answer echoes what the validator left on the request; the response validator then checks it against the
  // operation's answers (mostly refusing it), which is compared too.
  app.use((req, res) => {
    const openapi = (
      req as {
        openapi?: {
          openApiRoute?: string;
          expressRoute?: string;
          pathParams?: unknown;
          schema?: { operationId?: string };
          serial?: number;
        };
      }
    ).openapi;
    res.status(req.get('x-answer-status') ? Number(req.get('x-answer-status')) : 200).json({
      route: openapi?.openApiRoute ?? null,
      expressRoute: openapi?.expressRoute ?? null,
      keys: Object.keys(openapi ?? {}),
      pathParams: openapi?.pathParams ?? null,
      operationId: openapi?.schema?.operationId ?? null,
      serial: typeof openapi?.serial === 'number',
      params: req.params,
      query: req.query,
      body: req.body as unknown,
    });
  });
  const errors: ErrorRequestHandler = (
    err: { status?: number; message?: string; errors?: unknown },
    _req,
    res,
    _next,
  ) => {
    res
      .status(err.status ?? 500)
      .json({ status: err.status ?? null, message: err.message, errors: err.errors ?? null });
  };
  app.use(errors);
  return app;
}

interface Probe {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

/** Requests to every operation of a contract, well and badly formed, and beside them. */
function probes(api: ApiName): Probe[] {
  const paths = (loadContract(api) as { paths: Record<string, Record<string, unknown>> }).paths;
  const list: Probe[] = [];
  for (const [template, item] of Object.entries(paths)) {
    const path = template.replace(/\{[^}]+\}/g, 'pay_0123456789abcdefghijklmn');
    for (const method of METHODS) {
      const defined = method in item;
      list.push({ method, path });
      if (!defined) continue;
      list.push({ method, path: `${path}?unknown=1` });
      list.push({ method, path: `${path}?limit=abc&cursor=` });
      list.push({ method, path: `${path}/` });
      list.push({ method, path: path.toUpperCase() });
      list.push({ method, path: `${path}/extra` });
      if (path !== template) {
        // Parameters as the library decodes them, and one it cannot (400 "malformed uri").
        list.push({ method, path: template.replace(/\{[^}]+\}/g, 'pay_%41bc') });
        list.push({ method, path: template.replace(/\{[^}]+\}/g, 'pay_%E0%A4%A') });
      }
      if (method !== 'get' && method !== 'delete') {
        list.push({ method, path, body: '{}' });
        list.push({ method, path, body: '{"amount":{"unit":"iso4217/USD","value":1250},"referenceId":"a"}' });
        list.push({ method, path, body: '{"amount":{"unit":"iso4217/USD","value":"1250"},"referenceId":"order-1"}' });
        list.push({ method, path, body: '[1,2]' });
      }
      list.push({ method, path, headers: { 'x-answer-status': '201' } });
      list.push({ method, path, headers: { 'svc-version': 'not-a-version', 'client-id': 'x'.repeat(300) } });
    }
  }
  return list;
}

async function answer(server: Listening, probe: Probe): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${server.url}${probe.path}`, {
    method: probe.method.toUpperCase(),
    headers: { ...(probe.body ? { 'content-type': 'application/json' } : {}), ...probe.headers },
    ...(probe.body ? { body: probe.body } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
}

describe('ops.http.validator', function () {
  // CPU-bound: each server compiles a validator for every route of the contract (ajv walks the whole document per
  // route), about 25 s for the dashboard on an idle core, far more on a loaded CI machine.
  this.timeout(300_000);
  // With response validation (the test configuration), which refuses most echoes; without it (production), the echo
  // of what the request stages left on the request is compared whole.
  for (const [api, responses] of APIS.flatMap((a) => [[a, true] as const, [a, false] as const])) {
    it(`contractValidator answers as express-openapi-validator's middleware() on every ${api} operation${responses ? '' : ' without response validation'}`, async () => {
      const plain = await listen(
        appWith(OpenApiValidator.middleware(validatorOptions(api, responses)) as RequestHandler[]),
      );
      // As the server runs it: the operation matched by `surfaces` first. Without response validation also with no
      // operation matched, and with a wrong one (the route lookup must then find the library's route anyway).
      const routes = contractRoutes(api);
      const matched: Hint = (req) => (ownsPath(api, req.path) ? matchRoute(routes, req) : undefined);
      const hints: Hint[] = responses
        ? [matched]
        : [
            matched,
            () => undefined,
            (req) => {
              const right = matched(req);
              // Another template that takes the path too (`/payments/{paymentId}` for `/payments/export`), if any.
              const other = routes.filter((r) => r.template !== right?.template);
              return right && (other.find((r) => r.pattern.test(req.path)) ?? other[0]);
            },
          ];
      const tuned = await Promise.all(hints.map((hint) => listen(appWith(contractValidator(api, responses), hint))));
      try {
        const list = probes(api);
        assert.ok(list.length > 20, `${api}: ${list.length} probes`);
        let passed = 0;
        for (const probe of list) {
          const expected = await answer(plain, probe);
          for (const [i, server] of tuned.entries()) {
            const actual = await answer(server, probe);
            assert.deepEqual(actual, expected, `${probe.method} ${probe.path} ${probe.body ?? ''} (hint ${i})`);
          }
          if (expected.status < 300) passed++;
        }
        // Both kinds were compared: requests the validator let through, and refusals.
        assert.ok(passed > 0 && passed < list.length, `${api}: ${passed} of ${list.length} passed`);
      } finally {
        await plain.close();
        for (const server of tuned) await server.close();
      }
    });
  }
});
