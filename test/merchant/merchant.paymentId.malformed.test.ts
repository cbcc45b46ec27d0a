/**
 * A payment id is opaque to its caller (docs/decisions.md §4): on every operation of every contract that takes one,
 * and on the collect form, an id that names no payment of the caller is answered like an unknown one, malformed or
 * not; only an id over 128 characters is refused (400 params_validation). The operations come from the bundled
 * contracts (every parameter whose schema is `PaymentIdParam`), so a new one is covered as soon as it takes a payment
 * id. Both databases: a NUL in an id must not reach PostgreSQL, nor the status reads combined with other requests'.
 */
import assert from 'node:assert/strict';
import { collectToken } from '../../server/src/collect/index.js';
import { ada } from '../collect/harness.js';
import {
  expectError,
  expectJson,
  startGatewayHarness,
  unknownPayment,
  type GatewayHarness,
} from '../gateway/harness.js';
import { sharedChains } from '../helpers/chain.js';
import { apis, loadBundled, resolvePointer, type ApiName, type Json, type JsonObject } from '../helpers/contracts.js';
import { describeEachDatabase } from '../helpers/db.js';

const PARAM_SCHEMA = '#/components/schemas/PaymentIdParam';
const STRICT_SCHEMA = '#/components/schemas/PaymentId';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** One place a request names a payment by id. */
interface Site {
  name: string;
  surface: ApiName | 'collect';
  method: string;
  /** Where the id goes. */
  in: 'path' | 'query';
  /** The path and query for an id: `sent` as it goes on the wire (percent-encoded), `id` as the server decodes it. */
  url(sent: string, id: string): string;
  body?: Json;
  /** What an id that names no payment gets: 404 payment_not_found, or (a filter) a list with nothing in it. */
  unknown: 'payment_not_found' | 'empty list';
  /** The collect form's GET answers a page (its error state carries the refusal), not an ErrorResponse. */
  page?: boolean;
}

const isObject = (node: Json | undefined): node is JsonObject =>
  typeof node === 'object' && node !== null && !Array.isArray(node);

function deref(doc: JsonObject, node: Json | undefined): Json | undefined {
  let current = node;
  while (isObject(current) && typeof current.$ref === 'string') current = resolvePointer(doc, current.$ref);
  return current;
}

/** Every operation of the contract with the parameters it takes (the path item's and its own, $refs resolved). */
function operationsOf(
  api: ApiName,
): { doc: JsonObject; template: string; method: string; op: JsonObject; params: JsonObject[] }[] {
  const doc = loadBundled(api);
  const found = [];
  for (const [template, item] of Object.entries(doc.paths as JsonObject)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const listed = [...((item.parameters as Json[]) ?? []), ...((op.parameters as Json[]) ?? [])];
      const params = listed.map((p) => deref(doc, p)).filter(isObject);
      found.push({ doc, template, method, op, params });
    }
  }
  return found;
}

/** The codes of the examples of a response, $refs resolved. */
function exampleCodes(doc: JsonObject, response: Json | undefined): string[] {
  const media = deref(doc, response);
  const json = isObject(media) && isObject(media.content) ? media.content['application/json'] : undefined;
  if (!isObject(json)) return [];
  const values = [
    ...('example' in json ? [json.example] : []),
    ...(isObject(json.examples) ? Object.values(json.examples).map((e) => (deref(doc, e) as JsonObject).value) : []),
  ];
  return values.filter(isObject).map((v) => String(v.code));
}

/** A body the operation's schema accepts: its first example (examples are checked against the schema elsewhere). */
function bodyOf(doc: JsonObject, op: JsonObject, name: string): Json | undefined {
  const requestBody = deref(doc, op.requestBody);
  if (!isObject(requestBody)) return undefined;
  const json = isObject(requestBody.content) ? requestBody.content['application/json'] : undefined;
  if (isObject(json) && 'example' in json) return json.example;
  if (isObject(json) && isObject(json.examples)) {
    const first = Object.values(json.examples)[0];
    if (first !== undefined) return (deref(doc, first) as JsonObject).value;
  }
  assert.ok(!requestBody.required, `${name}: a required body needs an example for this test`);
  return undefined;
}

function contractSites(): Site[] {
  const sites: Site[] = [];
  for (const api of apis) {
    for (const { doc, template, method, op, params } of operationsOf(api)) {
      // The point-of-sale operations take a terminal and its key as well, and find only the terminal's own sales:
      // test/pos/pos.key.refused.test.ts holds the same id rules for them.
      if (JSON.stringify(op.security) === '[{"PosKey":[]}]') continue;
      for (const param of params) {
        if (!isObject(param.schema) || param.schema.$ref !== PARAM_SCHEMA) continue;
        const name = `${api} ${String(op.operationId)} (${String(param.in)} ${String(param.name)})`;
        const codes = exampleCodes(doc, (op.responses as JsonObject)['404']);
        let unknown: Site['unknown'];
        if (codes.includes('payment_not_found')) unknown = 'payment_not_found';
        else {
          assert.equal(param.in, 'query', `${name}: its 404 must list payment_not_found with an example`);
          unknown = 'empty list';
        }
        let url: Site['url'];
        if (param.in === 'path') {
          url = (sent) => template.replace(`{${String(param.name)}}`, sent);
          assert.ok(!url('x', 'x').includes('{'), `${name}: another path parameter, which this test cannot fill`);
        } else {
          assert.equal(param.in, 'query', name);
          assert.ok(!template.includes('{'), `${name}: a path parameter, which this test cannot fill`);
          url = (sent) => `${template}?${String(param.name)}=${sent}`;
        }
        sites.push({
          name,
          surface: api,
          method: method.toUpperCase(),
          in: param.in === 'path' ? 'path' : 'query',
          url,
          body: bodyOf(doc, op, name),
          unknown,
        });
      }
    }
  }
  return sites;
}

/** The data-collection form, outside the contracts (§16): with a genuine token, so the lookup is what answers. */
function collectSites(secret: () => Buffer): Site[] {
  const url = (sent: string, id: string) => `/collect/${sent}?t=${collectToken(id, secret())}`;
  const body = { ...ada };
  return [
    {
      name: 'collect GET /collect/{paymentId}',
      surface: 'collect',
      method: 'GET',
      in: 'path',
      url,
      unknown: 'payment_not_found',
      page: true,
    },
    {
      name: 'collect POST /collect/{paymentId}',
      surface: 'collect',
      method: 'POST',
      in: 'path',
      url,
      body,
      unknown: 'payment_not_found',
    },
  ];
}

describe('merchant.paymentId.malformed: the contracts', () => {
  it('every parameter naming a payment is the opaque PaymentIdParam; PaymentId stays for issued ids in bodies', () => {
    for (const api of apis) {
      const doc = loadBundled(api);
      const parameters = [
        ...operationsOf(api).flatMap((o) => o.params),
        ...Object.values((doc.components as JsonObject).parameters ?? {}).map((p) => deref(doc, p)),
      ].filter(isObject);
      for (const p of parameters) {
        assert.notEqual(
          (p.schema as JsonObject | undefined)?.$ref,
          STRICT_SCHEMA,
          `${api}: parameter ${String(p.name)}`,
        );
      }
      const param = (doc.components as { schemas: Record<string, JsonObject> }).schemas.PaymentIdParam;
      if (param)
        assert.deepEqual([param.type, param.minLength, param.maxLength, param.pattern], ['string', 1, 128, undefined]);
    }
  });

  it('finds the operations of every surface that take a payment id', () => {
    const names = contractSites().map((s) => s.name);
    for (const expected of [
      'gateway getPayment (path id)',
      'gateway getPaymentStatus (path id)',
      'gateway cancelPayment (path id)',
      'gateway getPaymentOptions (path id)',
      'gateway fetchAction (path id)',
      'gateway confirmPayment (path id)',
      'merchant getPayment (path id)',
      'merchant getPaymentStatus (path id)',
      'merchant getPaymentStatusAlias (path id)',
      'merchant cancelPayment (path id)',
      'merchant refundPayment (path id)',
      'merchant simulatePayment (path id)',
      'merchant listPayments (query startingAfter)',
      'merchant listPaymentsAlias (query startingAfter)',
      'dashboard listWebhookDeliveries (query paymentId)',
    ]) {
      assert.ok(names.includes(expected), `${expected} in ${JSON.stringify(names)}`);
    }
  });
});

describeEachDatabase('merchant.paymentId.malformed', (get) => {
  let h: GatewayHarness;
  let real: string;
  const sites = [...contractSites(), ...collectSites(() => h.runtime.config.optionSecret)];

  before(async () => {
    // The checkout operations (options, fetch, confirm) answer only on a server that serves a chain.
    h = await startGatewayHarness({ db: get().db, chains: await sharedChains() });
    // A delivery about a real payment, so an empty answer of the dashboard's filter means something.
    const merchant = { 'Api-Key': h.account.testKey, 'Merchant-Id': h.account.merchantId };
    const endpoint = { url: 'http://127.0.0.1:9/hooks' };
    await expectJson(
      await h.call('POST', '/v1/dashboard/webhook-endpoint', { headers: merchant, body: endpoint }),
      201,
    );
    real = await h.createPayment();
  });
  after(() => h?.close());

  const headersOf = (site: Site): Record<string, string | null> => {
    switch (site.surface) {
      case 'gateway':
        return { 'Api-Key': h.wallet.testKey };
      case 'merchant':
      case 'dashboard':
        return { 'Api-Key': h.account.testKey, 'Merchant-Id': h.account.merchantId };
      default:
        return { 'Api-Key': null };
    }
  };
  const send = (site: Site, id: string, sent = encodeURIComponent(id)) =>
    h.call(site.method, site.url(sent, id), { headers: headersOf(site), body: site.body });

  /** An ErrorResponse, or for the form's page its error state with the refusal's status. */
  const expectRefusal = async (site: Site, res: Response, status: number, code: string, what: string) => {
    if (!site.page)
      return expectError(res, status, code).catch((e: Error) => assert.fail(`${site.name}, ${what}: ${e.message}`));
    assert.equal(res.status, status, `${site.name}, ${what}`);
    assert.match(await res.text(), new RegExp(`"error":\\{"code":"${code}"`), `${site.name}, ${what}`);
  };

  const expectUnknown = async (site: Site, res: Response, what: string) => {
    if (site.unknown === 'payment_not_found') return expectRefusal(site, res, 404, 'payment_not_found', what);
    const list = await expectJson<{ data: unknown[]; hasMore: boolean }>(res, 200);
    assert.deepEqual([list.data, list.hasMore], [[], false], `${site.name}, ${what}`);
  };

  it('answers an id that names no payment like an unknown one, whatever its form', async () => {
    const ids: [string, string][] = [
      ['an unknown id of the issued form', unknownPayment],
      ['pay_doesnotexist', 'pay_doesnotexist'],
      ['pay_ and 23 characters', `pay_${'A'.repeat(23)}`],
      ['xyz', 'xyz'],
      ['a real id, truncated', real.slice(0, -1)],
      ['a real id and one more character', `${real}x`],
      ['a real id in lower case', real.toLowerCase()],
      ['an accented letter', `pay_é${'A'.repeat(23)}`],
      ['an emoji', 'pay_💸'],
      ['an encoded slash (%2F)', 'pay_a/b'],
      ['an encoded ? and #', 'pay_a?b#c'],
      ['a NUL (%00), which PostgreSQL cannot hold', `pay_\u0000${'A'.repeat(23)}`],
      ['128 characters, the longest allowed', 'p'.repeat(128)],
    ];
    for (const site of sites) {
      for (const [what, id] of ids) await expectUnknown(site, await send(site, id), what);
    }
  });

  it('the same operations still find the real payment', async () => {
    for (const site of sites.filter((s) => s.method === 'GET' && !s.page)) {
      const res = await send(site, real);
      // The payment is a direct-mode one: its deposit options are refused as `invalid_state`, which finding it takes.
      const found = site.name.startsWith('gateway getDepositOptions') ? 409 : 200;
      assert.equal(res.status, found, `${site.name}: ${await res.clone().text()}`);
      if (site.unknown === 'empty list') {
        const list = await expectJson<{ data: { paymentId: string }[] }>(res, 200);
        assert.deepEqual(
          list.data.map((d) => d.paymentId),
          [real],
          site.name,
        );
      }
    }
  });

  it('400 params_validation for an id over 128 characters, on the collect form too', async () => {
    for (const site of sites) {
      for (const id of ['p'.repeat(129), `pay_${'A'.repeat(196)}`]) {
        await expectRefusal(site, await send(site, id), 400, 'params_validation', `${id.length} characters`);
      }
    }
  });

  it('400 invalid_params for a path whose percent-encoding is not UTF-8; in a query it is just another id', async () => {
    for (const site of sites) {
      const res = await send(site, 'x', 'pay_%E0%A4%A');
      // The query parser keeps a value it cannot decode as sent, which then names no payment like any other.
      if (site.in === 'query') await expectUnknown(site, res, 'an undecodable query value');
      // A path that cannot be decoded is not a lookup of some id: the request cannot be read (the form's route never
      // runs either, so its answer is an ErrorResponse, not the page).
      else await expectError(res, 400, 'invalid_params');
    }
  });

  it('status polls with a malformed id leave the polls read together with them alone', async () => {
    const merchant = { 'Api-Key': h.account.testKey, 'Merchant-Id': h.account.merchantId };
    const poll = (id: string) =>
      h.call('GET', `/v1/merchant/payment/${encodeURIComponent(id)}/status`, { headers: merchant });
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => poll(i % 2 === 0 ? real : `pay_\u0000${i}`)),
    );
    for (const [i, res] of answers.entries()) {
      if (i % 2 === 0) assert.equal((await expectJson<{ status: string }>(res, 200)).status, 'pending');
      else await expectError(res, 404, 'payment_not_found');
    }
  });
});
