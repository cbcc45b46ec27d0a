/**
 * The data-collection rules without a server: when data is required (merchant flag, per-currency thresholds and
 * their configuration), the CollectData an options answer carries (the contract's schema, exactly), the link token,
 * and validateCollectedData's verdicts and messages.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '@paygate/server';
import {
  collectDataFor,
  collectDataRequired,
  collectToken,
  collectTokenMatches,
  validateCollectedData,
} from '../../server/src/collect/index.js';
import { contractAjv, loadBundled, type JsonObject } from '../helpers/contracts.js';
import { testConfig } from '../helpers/config.js';

const usd = (value: string) => ({ unit: 'iso4217/USD', value });
const defaults = () => testConfig().collectDataThresholds;

const valid = {
  fullName: 'Ada Lovelace',
  dob: '1815-12-10',
  porCountry: 'GB',
  porAddress: '12 St James Square, London',
  tosConfirmed: true,
};

function refusal(data: unknown): string {
  const result = validateCollectedData(data);
  assert.equal(result.ok, false, `expected a refusal of ${JSON.stringify(data)}`);
  return (result as { message: string }).message;
}

describe('collect.rules', () => {
  describe('collectDataRequired', () => {
    it('is required from 1000 USD or EUR by default, inclusive, and not below', () => {
      const thresholds = defaults();
      assert.deepEqual(
        [...thresholds],
        [
          ['USD', 100000n],
          ['EUR', 100000n],
        ],
      );
      const required = (amount: { unit: string; value: string }) =>
        collectDataRequired({ merchantCollectData: false, amount, thresholds });
      assert.equal(required(usd('99999')), false);
      assert.equal(required(usd('100000')), true);
      assert.equal(required(usd('250000000')), true);
      assert.equal(required({ unit: 'iso4217/EUR', value: '100000' }), true);
      // No threshold for the currency, or not a fiat amount: only the merchant flag can require it.
      assert.equal(required({ unit: 'iso4217/GBP', value: '99999999' }), false);
      assert.equal(
        required({
          unit: 'caip19/eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
          value: '9'.repeat(20),
        }),
        false,
      );
    });

    it('is always required for a merchant with the collect_data flag', () => {
      for (const thresholds of [defaults(), new Map<string, bigint>()]) {
        assert.equal(collectDataRequired({ merchantCollectData: true, amount: usd('1'), thresholds }), true);
      }
    });

    it('compares as integers, beyond the range of a double', () => {
      const thresholds = new Map([['USD', 9007199254740993n]]);
      assert.equal(
        collectDataRequired({ merchantCollectData: false, amount: usd('9007199254740992'), thresholds }),
        false,
      );
      assert.equal(
        collectDataRequired({ merchantCollectData: false, amount: usd('9007199254740993'), thresholds }),
        true,
      );
    });

    it('refuses an amount that is not minor units (a caller bug, not a buyer error)', () => {
      assert.throws(
        () => collectDataRequired({ merchantCollectData: false, amount: usd('12.50'), thresholds: defaults() }),
        /not a whole number of minor units/,
      );
    });
  });

  describe('PAYGATE_COLLECT_DATA_THRESHOLDS', () => {
    it('parses a list, upper-cases codes, and `none` disables every threshold', () => {
      const parsed = testConfig({ PAYGATE_COLLECT_DATA_THRESHOLDS: ' usd:5000 , JPY:150000,KWD:0' });
      assert.deepEqual(
        [...parsed.collectDataThresholds],
        [
          ['USD', 5000n],
          ['JPY', 150000n],
          ['KWD', 0n],
        ],
      );
      assert.equal(testConfig({ PAYGATE_COLLECT_DATA_THRESHOLDS: 'none' }).collectDataThresholds.size, 0);
      assert.equal(testConfig({ PAYGATE_COLLECT_DATA_THRESHOLDS: 'NONE' }).collectDataThresholds.size, 0);
    });

    for (const [raw, problem] of [
      ['USD', /<ISO 4217 code>:<minor units>.*got "USD"/],
      ['USD:10.5', /got "USD:10.5"/],
      ['USD:-1', /got "USD:-1"/],
      ['XYZ:100', /got "XYZ:100"/],
      ['USD:1,usd:2', /names USD twice/],
      [',', /names no threshold/],
    ] as const) {
      it(`stops the process on "${raw}", naming the variable`, () => {
        assert.throws(
          () => loadConfig({ PAYGATE_ENV: 'development', PAYGATE_COLLECT_DATA_THRESHOLDS: raw }),
          (err: unknown) =>
            err instanceof ConfigError &&
            err.variable === 'PAYGATE_COLLECT_DATA_THRESHOLDS' &&
            problem.test(err.message),
        );
      });
    }
  });

  describe('collectDataFor', () => {
    const secret = randomBytes(32);
    const paymentId = 'pay_7Qz3kP9xWm2LrT8vN4bY6cJd';

    it("carries the contract's example schema and fields exactly, and satisfies the CollectData schema", () => {
      const doc = loadBundled('gateway');
      const example = (
        (doc.paths as JsonObject)['/v1/gateway/payment/{id}/options'] as {
          post: { responses: { 200: { content: { 'application/json': { examples: Record<string, JsonObject> } } } } };
        }
      ).post.responses[200].content['application/json'].examples.data_collection_required!.value as {
        options: { collectData: { schema: unknown; fields: unknown } }[];
      };
      const collect = collectDataFor(paymentId, { publicBaseUrl: 'https://pay.example', optionSecret: secret });
      assert.deepEqual(collect.schema, example.options[0]!.collectData.schema);
      assert.deepEqual(collect.fields, example.options[0]!.collectData.fields);

      const validate = contractAjv(doc).compile({ $ref: 'contract#/components/schemas/CollectData' });
      assert.ok(validate(collect), JSON.stringify(validate.errors));
    });

    it('links to /collect/<id> with the HMAC token, under the public base URL', () => {
      const { url } = collectDataFor(paymentId, {
        publicBaseUrl: 'https://pay.example/paygate/',
        optionSecret: secret,
      });
      const parsed = new URL(url);
      assert.equal(parsed.origin + parsed.pathname, `https://pay.example/paygate/collect/${paymentId}`);
      const token = parsed.searchParams.get('t')!;
      assert.match(token, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(token, collectToken(paymentId, secret));
    });

    it('answers fresh copies, so a caller changing one cannot change the next', () => {
      const first = collectDataFor(paymentId, { publicBaseUrl: 'https://pay.example', optionSecret: secret });
      (first.schema as { required: string[] }).required.push('nickname');
      first.fields[0]!.name = 'changed';
      const second = collectDataFor(paymentId, { publicBaseUrl: 'https://pay.example', optionSecret: secret });
      assert.deepEqual((second.schema as { required: string[] }).required, ['fullName', 'dob', 'tosConfirmed']);
      assert.equal(second.fields[0]!.name, 'Full name');
    });
  });

  describe('the link token', () => {
    const secret = randomBytes(32);
    const id = 'pay_AAAAAAAAAAAAAAAAAAAAAAAA';

    it('matches only its payment, under its secret', () => {
      const token = collectToken(id, secret);
      assert.equal(collectTokenMatches(id, token, [secret]), true);
      assert.equal(collectTokenMatches('pay_BBBBBBBBBBBBBBBBBBBBBBBB', token, [secret]), false);
      assert.equal(collectTokenMatches(id, token, [randomBytes(32)]), false);
    });

    it('still matches after a rotation while its secret is listed as previous, and not once it is dropped', () => {
      const token = collectToken(id, secret);
      const rotated = randomBytes(32);
      assert.equal(collectTokenMatches(id, token, [rotated, secret]), true);
      assert.equal(collectTokenMatches(id, token, [rotated]), false);
      assert.equal(collectTokenMatches(id, collectToken(id, rotated), [rotated, secret]), true);
    });

    it('refuses anything malformed without throwing', () => {
      const token = collectToken(id, secret);
      // 43 characters carry 258 bits for 256: flipping the last character's low bit keeps the decoded bytes.
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const respelled = token.slice(0, -1) + alphabet[alphabet.indexOf(token.slice(-1)) ^ 1];
      assert.deepEqual(Buffer.from(respelled, 'base64url'), Buffer.from(token, 'base64url'));
      for (const bad of [
        undefined,
        null,
        '',
        token.slice(1),
        `${token}A`,
        `${token.slice(0, -1)}+`,
        respelled,
        ['x'],
        42,
      ]) {
        assert.equal(collectTokenMatches(id, bad, [secret]), false, String(bad));
      }
    });
  });

  describe('validateCollectedData', () => {
    it('accepts either address pair, or both', () => {
      const { porCountry, porAddress, ...base } = valid;
      for (const data of [
        valid,
        { ...base, pobCountry: 'US', pobAddress: 'New York, NY' },
        { ...base, pobCountry: 'US', pobAddress: 'New York, NY', porCountry, porAddress },
        // A lone field of the other pair is allowed: the schema asks for one complete pair.
        { ...valid, pobCountry: 'FR' },
      ]) {
        const result = validateCollectedData(data);
        assert.deepEqual(result, { ok: true, value: data });
      }
    });

    it('accepts the bounds exactly: a one-character name, a 200-character address, 29 February of a leap year', () => {
      const data = { ...valid, fullName: 'X', porAddress: 'a'.repeat(200), dob: '2000-02-29' };
      assert.equal(validateCollectedData(data).ok, true);
    });

    it('refuses missing required fields, naming each', () => {
      const message = refusal({ porCountry: 'GB', porAddress: 'London' });
      assert.match(message, /fullName is required/);
      assert.match(message, /dob is required/);
      assert.match(message, /tosConfirmed is required/);
    });

    it('refuses data with neither address pair complete', () => {
      const { porAddress: _dropped, ...rest } = valid;
      assert.equal(
        refusal({ ...rest, pobAddress: 'Paris' }),
        'Either pobCountry and pobAddress or porCountry and porAddress must be given.',
      );
    });

    it('refuses each broken rule with a message that names the field and not the value', () => {
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ fullName: '' }, /^fullName must not be empty\.$/],
        [{ dob: '1990-02-30' }, /^dob must be a real date written YYYY-MM-DD\.$/],
        [{ dob: '15/01/1990' }, /^dob must be a real date written YYYY-MM-DD\.$/],
        [{ porCountry: 'gb' }, /^porCountry must be an ISO 3166-1 alpha-2 country code/],
        [{ porCountry: 'GBR' }, /^porCountry must be an ISO 3166-1 alpha-2 country code/],
        [{ porAddress: 'b'.repeat(201) }, /^porAddress must be at most 200 characters\.$/],
        [{ tosConfirmed: false }, /^tosConfirmed must be true\.$/],
        [{ tosConfirmed: 'true' }, /^tosConfirmed must be a boolean\.$/],
        [{ fullName: 42 }, /^fullName must be a string\.$/],
        [{ nickname: 'Ada' }, /^nickname is not a field of this form\.$/],
      ];
      for (const [change, expected] of cases) {
        const message = refusal({ ...valid, ...change });
        assert.match(message, expected, JSON.stringify(change));
        for (const value of Object.values(change)) {
          if (typeof value === 'string' && value.length > 1) assert.ok(!message.includes(value), message);
        }
      }
    });

    it('lists several problems in form order, at most five', () => {
      const message = refusal({
        fullName: '',
        dob: 'yesterday',
        pobCountry: 'usa',
        porCountry: 'gb',
        porAddress: 'c'.repeat(300),
        tosConfirmed: false,
        extra: 1,
      });
      assert.match(
        message,
        /^fullName must not be empty\. dob must .* pobCountry must .* porCountry must .* porAddress must .* \(and 2 more\)$/,
      );
    });

    it('refuses what is not an object', () => {
      for (const data of [null, [], 'Ada', 3, undefined]) {
        assert.equal(refusal(data), 'The collected data must be a JSON object.');
      }
    });
  });
});
