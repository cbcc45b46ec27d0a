/**
 * The request path without an Express layer per middleware (http/surface.ts) and with helmet's headers recorded once
 * (http/security.ts): the same middlewares run in the same order, and every answer carries the same headers.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import { contractValidator, loadContract, ownsPath, type ApiName } from '../../server/src/http/openapi.js';
import { fixedHeaders } from '../../server/src/http/security.js';
import { inSequence, onlyFor, surfaces } from '../../server/src/http/surface.js';
import { listen } from '../helpers/http.js';

const APIS: ApiName[] = ['gateway', 'merchant', 'dashboard', 'dev'];

/** Runs a middleware on a bare request and answers how it continued: with `next()`, an error, or not (yet). */
function runOn(handler: RequestHandler, path = '/'): Promise<{ next: unknown[] } | { answered: true }> {
  return new Promise((resolve) => {
    const req = { path } as Parameters<RequestHandler>[0];
    const res = { end: () => resolve({ answered: true }) } as unknown as Parameters<RequestHandler>[1];
    handler(req, res, (...args: unknown[]) => resolve({ next: args }));
  });
}

describe('ops.http.pipeline', () => {
  describe('contract surfaces', () => {
    it('every operation of a contract is under that contract’s prefixes, and no other’s', () => {
      for (const api of APIS) {
        const paths = Object.keys((loadContract(api) as { paths: Record<string, unknown> }).paths);
        assert.ok(paths.length > 0, api);
        for (const template of paths) {
          const path = template.replace(/\{[^}]+\}/g, 'x');
          assert.deepEqual(
            APIS.filter((a) => ownsPath(a, path)),
            [api],
            `${template} is owned by ${api} alone`,
          );
        }
      }
    });

    it('no operation takes multipart or binary bodies, which the validators do not handle (fileUploader: false)', () => {
      for (const api of APIS) {
        const text = JSON.stringify(loadContract(api));
        assert.doesNotMatch(text, /multipart\/|"format":"binary"/, api);
      }
    });

    it('sends a request through the middlewares of the contract that owns its path only', async () => {
      const seen: string[] = [];
      const mark =
        (name: string): RequestHandler =>
        (_req, _res, next) => {
          seen.push(name);
          next();
        };
      const handler = surfaces({
        gateway: [mark('gateway auth'), mark('gateway router')],
        merchant: [mark('merchant auth'), [mark('merchant validator a'), mark('merchant validator b')]],
      });
      assert.deepEqual(await runOn(handler, '/v1/merchant/payments'), { next: [] });
      assert.deepEqual(seen, ['merchant auth', 'merchant validator a', 'merchant validator b']);
      seen.length = 0;
      assert.deepEqual(await runOn(handler, '/collect/pay_x'), { next: [] });
      assert.deepEqual(seen, []);
    });

    it('onlyFor skips the handler for other paths', async () => {
      let ran = 0;
      const handler = onlyFor(
        (path) => path.startsWith('/docs'),
        (_req, _res, next) => {
          ran++;
          next();
        },
      );
      await runOn(handler, '/v1/merchant/payments');
      assert.equal(ran, 0);
      await runOn(handler, '/docs/merchant');
      assert.equal(ran, 1);
    });
  });

  describe('the validators’ route matching', () => {
    it('compiles a route template once per pair of flags, and passes any other call through', () => {
      contractValidator('merchant', false);
      const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
      const { pathToRegexp } = fromValidator('path-to-regexp') as {
        pathToRegexp: (path: string, options?: Record<string, unknown>) => { regexp: RegExp };
      };
      const template = '/v1/merchant/payment/:id/status';
      const strict = pathToRegexp(template, { sensitive: true, strict: true });
      assert.equal(pathToRegexp(template, { sensitive: true, strict: true }), strict);
      assert.notEqual(pathToRegexp(template, { sensitive: false, strict: true }), strict);
      assert.ok(strict.regexp.test('/v1/merchant/payment/pay_1/status'));
      assert.ok(!strict.regexp.test('/V1/merchant/payment/pay_1/status'));
      assert.notEqual(pathToRegexp(template, { end: false }), pathToRegexp(template, { end: false }));
    });
  });

  describe('inSequence', () => {
    it('runs the middlewares in order and then continues', async () => {
      const order: number[] = [];
      const step =
        (n: number): RequestHandler =>
        (_req, _res, next) => {
          order.push(n);
          next();
        };
      assert.deepEqual(await runOn(inSequence([step(1), step(2), step(3)])), { next: [] });
      assert.deepEqual(order, [1, 2, 3]);
    });

    it('passes an error on, thrown, rejected or given to next, and runs nothing after it', async () => {
      const boom = new Error('boom');
      const after: RequestHandler = () => assert.fail('ran after an error');
      const failing: RequestHandler[] = [
        () => {
          throw boom;
        },
        async () => {
          await Promise.resolve();
          throw boom;
        },
        (_req, _res, next) => next(boom),
      ];
      for (const fail of failing) {
        assert.deepEqual(await runOn(inSequence([fail, after])), { next: [boom] });
      }
    });

    it('stops where a middleware answers, and treats next("route") as next()', async () => {
      const answer: RequestHandler = (_req, res) => res.end();
      const skip: RequestHandler = (_req, _res, next) => next('route');
      assert.deepEqual(await runOn(inSequence([skip, answer, () => assert.fail('ran after the answer')])), {
        answered: true,
      });
    });
  });

  describe('recorded security headers', () => {
    const policies = {
      'helmet defaults': helmet(),
      'a JSON API policy': helmet({
        contentSecurityPolicy: {
          useDefaults: false,
          directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"] },
        },
        crossOriginOpenerPolicy: false,
        xFrameOptions: false,
      }),
    };

    for (const [name, policy] of Object.entries(policies)) {
      it(`sets exactly the headers helmet sets: ${name}`, async () => {
        const headersOf = async (handler: RequestHandler) => {
          const app = express();
          app.use(handler);
          app.get('/', (_req, res) => res.json({}));
          const server = await listen(app);
          try {
            const res = await fetch(`${server.url}/`);
            const headers = Object.fromEntries(res.headers);
            // Per-answer values, not the policy's.
            for (const varying of ['date', 'etag', 'keep-alive', 'connection']) delete headers[varying];
            return headers;
          } finally {
            await server.close();
          }
        };
        assert.deepEqual(await headersOf(fixedHeaders(policy)), await headersOf(policy));
      });
    }

    it('refuses, at startup, a policy whose headers depend on the request', () => {
      const nonce: (req: unknown, res: unknown) => string = (_req, res) =>
        `'nonce-${(res as { locals: { nonce: string } }).locals.nonce}'`;
      const perRequest = helmet({
        contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], scriptSrc: [nonce] } },
      });
      assert.throws(() => fixedHeaders(perRequest), /cannot be recorded/);
    });
  });
});
