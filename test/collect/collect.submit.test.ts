/**
 * The form's routes over HTTP, without a browser: what the page answer carries (status, CSP, caching), and the post's
 * refusals in their order (content type, link token, data, payment, state), storage sealed to the payment, and logs
 * that never hold the data.
 */
import assert from 'node:assert/strict';
import { collectToken, hasCollectedData, readCollectedData } from '../../server/src/collect/index.js';
import { findCollectedData } from '../../server/src/db/queries/collectedData.js';
import { expectError, unknownPayment } from '../gateway/harness.js';
import { ada, startCollectHarness, type CollectHarness } from './harness.js';

describe('collect.submit', () => {
  let h: CollectHarness;
  before(async () => {
    h = await startCollectHarness();
  });
  after(() => h.close());

  const post = (path: string, body: unknown, contentType = 'application/json') =>
    fetch(`${h.server.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': contentType },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const stored = (paymentId: string) => readCollectedData(h.runtime, paymentId);

  describe('GET /collect/{id}', () => {
    it('serves the form page, loading only its own built script and style, with a CSP that allows them (self) and nothing inline', async () => {
      const id = await h.createPayment();
      const res = await fetch(h.formUrl(id));
      assert.equal(res.status, 200);
      assert.match(res.headers.get('Content-Type')!, /^text\/html/);
      assert.equal(res.headers.get('Cache-Control'), 'no-store');
      const html = await res.text();
      const loads = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
      assert.ok(loads.length >= 2, 'the page loads its built script and style');
      assert.deepEqual(
        loads.filter((url) => !/^\/collect\/assets\/[\w.-]+\.(js|css)$/.test(url)),
        [],
        'the page loads only its own assets',
      );
      assert.ok(!/<script(?![^>]*(\bsrc=|application\/json))[^>]*>|<style\b/.test(html), 'no inline script or style');
      assert.match(html, /"fullName":\{"type":"string","title":"Full name"/);

      const csp = Object.fromEntries(
        res.headers
          .get('Content-Security-Policy')!
          .split(';')
          .map((d) => d.trim().split(/\s+/))
          .map(([name, ...values]) => [name, values.join(' ')]),
      );
      assert.equal(csp['default-src'], "'none'");
      assert.equal(csp['script-src'], "'self'");
      assert.equal(csp['style-src'], "'self'");
      assert.equal(csp['connect-src'], "'self'");
      assert.equal(csp['form-action'], "'none'");
      assert.equal(csp['frame-ancestors'], '*');
      // A wallet's popup keeps its opener (no COOP) and a wallet may frame the page (no X-Frame-Options).
      assert.equal(res.headers.get('Cross-Origin-Opener-Policy'), null);
      assert.equal(res.headers.get('X-Frame-Options'), null);
      assert.equal(res.headers.get('Referrer-Policy'), 'no-referrer');
    });

    it('shows the error state with the refusal status for a wrong token, and the same page for an unknown payment', async () => {
      const id = await h.createPayment();
      const wrong = await fetch(`${h.server.url}/collect/${id}?t=${collectToken(id, Buffer.alloc(32, 7))}`);
      const unknown = await fetch(h.formUrl(unknownPayment));
      const missing = await fetch(`${h.server.url}/collect/${id}`);
      const pages = await Promise.all([wrong, unknown, missing].map((r) => r.text()));
      assert.deepEqual([wrong.status, unknown.status, missing.status], [404, 404, 404]);
      assert.match(
        pages[0]!,
        /"error":\{"code":"payment_not_found","message":"No payment matches this data-collection link\."\}/,
      );
      assert.equal(pages[1], pages[0], 'a wrong token reveals nothing about the payment');
      assert.equal(pages[2], pages[0]);
    });

    it('shows 409 for a payment no longer requiring action and 410 once it has expired', async () => {
      const cancelled = await h.createPayment();
      await h.call('POST', `/v1/gateway/payment/${cancelled}/cancel`);
      const res = await fetch(h.formUrl(cancelled));
      assert.equal(res.status, 409);
      assert.match(await res.text(), /"code":"invalid_state","message":"Payment pay_\w+ is cancelled;/);

      const expiring = await h.createPayment({ expiresInSeconds: 60 });
      h.clock.advance(61_000);
      const expired = await fetch(h.formUrl(expiring));
      assert.equal(expired.status, 410);
      assert.match(await expired.text(), /"code":"payment_expired"/);
    });
  });

  describe('POST /collect/{id}', () => {
    it('stores the data sealed and bound to the payment, and a repeat replaces it', async () => {
      const id = await h.createPayment();
      assert.equal(await hasCollectedData(h.runtime.db.knex, id), false);
      const res = await post(h.formPath(id), ada);
      assert.equal(res.status, 204);
      assert.equal(await res.text(), '');

      const row = await findCollectedData(h.runtime.db.knex, id);
      assert.ok(row);
      for (const value of [ada.fullName, ada.dob, ada.porAddress, 'Lovelace']) {
        assert.ok(!row.sealed.includes(value), 'the stored value is ciphertext');
      }
      assert.ok(!Buffer.from(row.sealed, 'utf8').toString('base64').includes(Buffer.from('Ada').toString('base64')));
      assert.deepEqual(await stored(id), ada);
      assert.equal(await hasCollectedData(h.runtime.db.knex, id), true);

      // The ciphertext opens only under its own payment id.
      const other = await h.createPayment();
      await h.runtime.db.knex('collected_data').insert({ payment_id: other, sealed: row.sealed, created_at: 0 });
      await assert.rejects(stored(other));

      const corrected = { ...ada, fullName: 'Augusta Ada King' };
      assert.equal((await post(h.formPath(id), corrected)).status, 204);
      assert.deepEqual(await stored(id), corrected);
      assert.equal(
        Number((await h.runtime.db.knex('collected_data').where({ payment_id: id }).count('* as n'))[0]!.n),
        1,
      );
    });

    it('refuses invalid data with 400 params_validation and the reason, storing nothing', async () => {
      const id = await h.createPayment();
      const { porAddress: _dropped, ...noPair } = ada;
      const cases: [unknown, RegExp][] = [
        [noPair, /^Either pobCountry and pobAddress or porCountry and porAddress must be given\.$/],
        [{ ...ada, porCountry: 'gb' }, /^porCountry must be an ISO 3166-1 alpha-2 country code/],
        [{ ...ada, dob: '1815-02-30' }, /^dob must be a real date/],
        [{ ...ada, tosConfirmed: false }, /^tosConfirmed must be true\.$/],
        [{ ...ada, email: 'ada@example.com' }, /^email is not a field of this form\.$/],
        [[ada], /^The collected data must be a JSON object\.$/],
      ];
      for (const [body, expected] of cases) {
        const message = await expectError(await post(h.formPath(id), body), 400, 'params_validation');
        assert.match(message, expected);
      }
      assert.equal(await stored(id), null);
    });

    it('refuses a wrong, missing, repeated or foreign token with the same 404 as an unknown payment', async () => {
      const id = await h.createPayment();
      const other = await h.createPayment();
      const token = new URL(h.formUrl(id)).searchParams.get('t')!;
      const paths = [
        `/collect/${id}?t=${collectToken(id, Buffer.alloc(32, 1))}`,
        `/collect/${id}`,
        `/collect/${id}?t=${token}&t=${token}`,
        `/collect/${other}?t=${token}`,
      ];
      const notFound = async (path: string, body: unknown) =>
        assert.equal(
          await expectError(await post(path, body), 404, 'payment_not_found'),
          'No payment matches this data-collection link.',
        );
      for (const path of paths) {
        // Invalid data too: the token is checked first, so a stranger learns nothing from validation.
        for (const body of [ada, { fullName: '' }]) await notFound(path, body);
      }
      // A genuine link whose payment does not exist (only the server can mint one) says the same.
      await notFound(h.formPath(unknownPayment), ada);
      assert.equal(await stored(id), null);
      assert.equal(await stored(other), null);
    });

    it('refuses a payment that is no longer open: 409 invalid_state, 410 payment_expired', async () => {
      const cancelled = await h.createPayment();
      await h.call('POST', `/v1/gateway/payment/${cancelled}/cancel`);
      const message = await expectError(await post(h.formPath(cancelled), ada), 409, 'invalid_state');
      assert.match(message, /is cancelled; data can be given only while it requires action\.$/);

      const expiring = await h.createPayment({ expiresInSeconds: 60 });
      h.clock.advance(61_000);
      await expectError(await post(h.formPath(expiring), ada), 410, 'payment_expired');
      assert.equal(await stored(cancelled), null);
      assert.equal(await stored(expiring), null);
    });

    it('refuses a body that is not JSON: 415 for another type, 400 invalid_params for malformed JSON', async () => {
      const id = await h.createPayment();
      await expectError(
        await post(h.formPath(id), 'fullName=Ada', 'application/x-www-form-urlencoded'),
        415,
        'invalid_params',
      );
      await expectError(await post(h.formPath(id), '{"fullName":', 'application/json'), 400, 'invalid_params');
      assert.equal(await stored(id), null);
    });

    it('answers unknown methods and sub-paths with the usual 404 ErrorResponse', async () => {
      const id = await h.createPayment();
      await expectError(await fetch(`${h.server.url}${h.formPath(id)}`, { method: 'PUT' }), 404, 'invalid_params');
      await expectError(await fetch(`${h.server.url}/collect/${id}/extra`), 404, 'invalid_params');
    });

    it('never writes the data, or the token, to the logs', async () => {
      const id = await h.createPayment();
      assert.equal((await post(h.formPath(id), ada)).status, 204);
      await post(h.formPath(id), { ...ada, porCountry: 'Great Britain' });
      await post(h.formPath(id), '{"fullName":"Ada Lovelace",', 'application/json');
      const text = h.logs.text();
      assert.match(text, /"route":"\/collect\/:paymentId"/, 'the requests are logged');
      for (const secret of [ada.fullName, ada.dob, ada.porAddress, 'Great Britain', 'Lovelace']) {
        assert.ok(!text.includes(secret), `the logs hold "${secret}"`);
      }
      const token = new URL(h.formUrl(id)).searchParams.get('t')!;
      assert.ok(!text.includes(token), 'the logs hold the link token');
    });
  });
});
