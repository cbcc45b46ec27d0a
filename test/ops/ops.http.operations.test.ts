/**
 * The contracts' operations, matched once per request (http/operations.ts): the match names the operation whose
 * schema the validator checks, for every operation of every contract and for spellings no contract defines (or, for
 * a trailing slash, none at all, so the request reaches no handler); a
 * contract's router has a handler for exactly its operations, and refuses to run one for a request the validator saw
 * as another.
 */
import assert from 'node:assert/strict';
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { contractValidator, loadContract, type ApiName } from '../../server/src/http/openapi.js';
import { contractRouter, contractRoutes, matchRoute } from '../../server/src/http/operations.js';
import { listen } from '../helpers/http.js';

const APIS: ApiName[] = ['gateway', 'merchant', 'dashboard', 'dev', 'ops'];

interface Seen {
  matched: string | null;
  validated: string | null;
}

describe('ops.http.operations', () => {
  for (const api of APIS) {
    it(`${api}: the operation matched once is the one the validator checks, or there is none for either`, async () => {
      const routes = contractRoutes(api);
      const app = express();
      app.set('strict routing', true);
      app.set('case sensitive routing', true);
      const seen = (req: Request, res: Response): Seen => ({
        matched: res.locals.operation?.operationId ?? null,
        validated: (req as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId ?? null,
      });
      app.use((req, res, next) => {
        res.locals.operation = matchRoute(routes, req);
        next();
      });
      app.use(contractValidator(api, false));
      app.use((req, res) => res.json(seen(req, res)));
      const refused: ErrorRequestHandler = (_err, req, res, _next) => res.status(299).json(seen(req, res));
      app.use(refused);
      const server = await listen(app);
      try {
        const paths = (loadContract(api) as { paths: Record<string, Record<string, unknown>> }).paths;
        let compared = 0;
        for (const [template, item] of Object.entries(paths)) {
          const path = template.replace(/\{[^}]+\}/g, 'export');
          for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
            for (const variant of [path, `${path}/`, path.toUpperCase(), `${path}/x`]) {
              const res = await fetch(`${server.url}${variant}`, { method: method.toUpperCase() });
              const { matched, validated } = (await res.json()) as Seen;
              // The one difference: the validator's path-to-regexp accepts a trailing slash, the match does not, so
              // such a request reaches no handler (404), as before through strict routers. Never another operation.
              if (variant.endsWith('/') && matched === null) continue;
              assert.equal(matched, validated, `${method} ${variant}`);
              if (variant === path && method in item) {
                assert.ok(matched, `${method} ${variant} is an operation`);
                compared++;
              }
            }
          }
        }
        assert.equal(compared, routes.length);
      } finally {
        await server.close();
      }
    });
  }

  it('a literal segment is matched before a parameter', () => {
    const routes = contractRoutes('dashboard');
    const req = { method: 'GET', path: '/v1/dashboard/payments/export' } as Request;
    assert.equal(matchRoute(routes, req)?.operationId, 'exportPayments');
  });

  describe('contractRouter', () => {
    const noop: RequestHandler = (_req, _res, next) => next();

    it('refuses, when the app is built, an operation without a handler or a handler without an operation', () => {
      assert.throws(() => contractRouter('dev', [], { listDevChains: noop }), /no handler for devFaucet/);
      assert.throws(
        () => contractRouter('dev', [], { listDevChains: noop, devFaucet: noop, mint: noop } as never),
        /mint is not an operation/,
      );
    });

    it('runs the operation’s middlewares in order; a request validated as another operation is a server error', () => {
      const order: string[] = [];
      const mark =
        (name: string): RequestHandler =>
        (_req, _res, next) => {
          order.push(name);
          next();
        };
      const router = contractRouter('dev', [mark('limit')], {
        listDevChains: mark('chains'),
        devFaucet: [mark('extra'), mark('faucet')],
      });
      const run = (matched: string, validated: string) => {
        const errors: unknown[] = [];
        const req = { method: 'POST', path: '/v1/dev/faucet', openapi: { schema: { operationId: validated } } };
        const res = { locals: { operation: { operationId: matched } } };
        router(req as never, res as never, (err?: unknown) => errors.push(err));
        return errors;
      };
      assert.deepEqual(run('devFaucet', 'devFaucet'), [undefined]);
      assert.deepEqual(order, ['limit', 'extra', 'faucet']);
      order.length = 0;
      const [error] = run('devFaucet', 'listDevChains');
      assert.match(String(error), /matched devFaucet, validated as listDevChains/);
      assert.deepEqual(order, [], 'no handler ran');
    });
  });
});
