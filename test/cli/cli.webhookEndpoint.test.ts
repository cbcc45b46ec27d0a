import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Webhook } from '@paygate/webhook-verifier';
import type { Runtime } from '@paygate/server';
import { findEndpoint } from '../../server/src/db/queries/webhooks.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { expectFailure, parseJson, runCli, runCliInProcess, type CliResult } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { testRuntime } from '../helpers/runtime.js';

interface Endpoint {
  id: string;
  url: string;
  eventTypes: string[];
  enabled: boolean;
  disabledReason: string | null;
  mode: string;
  createdAt: number;
  secretRotatedAt: number | null;
  previousSecretExpiresAt: number | null;
  failingSince: number | null;
}

interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  paymentId: string;
  trigger: string;
  status: string;
  attemptCount: number;
  attempts?: { attempt: number; status: number | null; outcome: string; startedAt: number }[];
}

/**
 * The commands against an SQLite file, beside a runtime on the same file that plays the server's part: it runs the
 * delivery jobs the commands queue, to a real receiver. The first command is the real bin; the rest run in-process.
 */
describe('cli.webhookEndpoint [sqlite]', function () {
  let t: TestDatabase;
  let env: Record<string, string>;
  let runtime: Runtime;
  let receiver: Receiver;
  let merchantId: string;
  let secret: string;
  let endpointId: string;

  const run = (...args: string[]) => runCliInProcess(args, env);
  const whArgs = (command: string, ...args: string[]) => [
    'admin',
    'webhook-endpoint',
    command,
    '--merchant',
    merchantId,
    ...args,
  ];
  const wh = (command: string, ...args: string[]) => run(...whArgs(command, ...args));
  /**
   * One command after another: some refusals come only after the database is open, and in one process a second
   * SQLite connection's busy wait blocks the thread the first one's transaction needs ("database is locked").
   */
  const inTurn = async (commands: string[][]) => {
    const results: CliResult[] = [];
    for (const args of commands) results.push(await run(...args));
    return results;
  };
  const json = <T = Record<string, unknown>>(result: CliResult) => parseJson<T>(result);
  const newPayment = () =>
    createPayment(runtime, {
      merchantId,
      live: false,
      referenceId: 'order-1',
      amount: { unit: 'iso4217/USD', value: '1250' },
      expiresAt: Date.now() + 86_400_000,
      successUrl: null,
      errorUrl: null,
    });
  const verifier = (s: string) => new Webhook(s);

  before(async () => {
    t = await createTestDatabase('sqlite');
    const encryptionKey = `k1:${randomBytes(32).toString('base64')}`;
    env = { DATABASE_URL: t.url, PAYGATE_ENCRYPTION_KEY: encryptionKey };
    runtime = await testRuntime({
      db: t.db,
      clock: { now: () => Date.now(), set: () => undefined, advance: () => undefined },
      config: { DATABASE_URL: t.url, PAYGATE_ENCRYPTION_KEY: encryptionKey },
    });
    receiver = await startReceiver();
    merchantId = (await createMerchantAccount(runtime)).merchantId;
  });
  after(async () => {
    await receiver.close();
    await runtime.close();
    await t.drop();
  });

  it('create --json prints exactly {endpointId, secret}; the secret is stored sealed and verifies deliveries', async () => {
    // The real bin for one command (the others run in-process): the secret it prints verifies deliveries.
    const created = json<{ endpointId: string; secret: string }>(
      await runCli(whArgs('create', '--mode', 'test', '--url', `${receiver.url}/hooks`, '--json'), env),
    );
    assert.deepEqual(Object.keys(created), ['endpointId', 'secret']);
    assert.match(created.endpointId, /^whe_[0-9A-Za-z]{16}$/);
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    ({ endpointId, secret } = created);
    const row = await findEndpoint(t.db.knex, endpointId);
    assert.ok(!row!.secret_sealed.includes(secret.slice(6)));

    const payment = await newPayment();
    await runtime.jobs.drain();
    const [hit] = receiver.received;
    const event = verifier(secret).verify(hit!.body, hit!.headers) as { data: { payment_id: string } };
    assert.equal(event.data.payment_id, payment.id);
  });

  it('get and list never show the secret; list covers both modes', async () => {
    const endpoint = json<Endpoint>(await wh('get', '--mode', 'test', '--json'));
    assert.equal(endpoint.id, endpointId);
    assert.equal(endpoint.mode, 'test');
    assert.equal(endpoint.enabled, true);
    assert.equal(endpoint.secretRotatedAt, null);
    const listed = await wh('list', '--json');
    assert.ok(!listed.stdout.includes(secret.slice(6)));
    assert.deepEqual(json<{ endpoints: Endpoint[] }>(listed), { endpoints: [endpoint] });
    const human = await wh('list');
    assert.match(human.stdout, /^ID\s+MODE\s+ENABLED\s+URL/);
    assert.match(human.stdout, new RegExp(`${endpointId}\\s+test\\s+yes`));
    assert.equal((await wh('get', '--mode', 'test')).stdout.includes(secret.slice(6)), false);
  });

  it('rotate --json: the new secret, shown once; both signatures verify during the overlap', async () => {
    const rotated = json<{ endpoint: Endpoint; secret: string; previousSecretExpiresAt: number }>(
      await wh('rotate', '--mode', 'test', '--json'),
    );
    assert.notEqual(rotated.secret, secret);
    assert.equal(rotated.previousSecretExpiresAt, rotated.endpoint.secretRotatedAt! + 86_400);
    await newPayment();
    await runtime.jobs.drain();
    const hit = receiver.received.at(-1)!;
    assert.equal(String(hit.headers['webhook-signature']).split(' ').length, 2);
    verifier(secret).verify(hit.body, hit.headers);
    verifier(rotated.secret).verify(hit.body, hit.headers);
    secret = rotated.secret;
  });

  it('test --type sends a test event with sample data and live = false', async () => {
    const sent = json<{ delivery: Delivery; event: { id: string; data: { live: boolean } } }>(
      await wh('test', '--mode', 'test', '--type', 'payment.succeeded', '--json'),
    );
    assert.equal(sent.delivery.trigger, 'test');
    assert.equal(sent.delivery.status, 'pending');
    await runtime.jobs.drain();
    const hit = receiver.received.at(-1)!;
    assert.deepEqual(verifier(secret).verify(hit.body, hit.headers), sent.event);
    assert.equal(sent.event.data.live, false);
  });

  it('deliveries lists with filters; delivery <id> shows the attempts', async () => {
    const all = json<{ data: Delivery[]; hasMore: boolean }>(await wh('deliveries', '--mode', 'test', '--json'));
    assert.equal(all.data.length, 3);
    assert.ok(all.data.every((d) => d.status === 'delivered' && !('attempts' in d)));
    const tests = json<{ data: Delivery[] }>(
      await wh('deliveries', '--mode', 'test', '--event-type', 'payment.succeeded', '--json'),
    );
    assert.deepEqual(
      tests.data.map((d) => d.trigger),
      ['test'],
    );
    const page = json<{ data: Delivery[]; hasMore: boolean; nextCursor: string }>(
      await wh('deliveries', '--mode', 'test', '--limit', '1', '--status', 'delivered', '--json'),
    );
    assert.equal(page.data.length, 1);
    assert.equal(page.hasMore, true);
    const byPayment = json<{ data: Delivery[] }>(
      await wh('deliveries', '--mode', 'test', '--payment', all.data[2]!.paymentId, '--json'),
    );
    assert.deepEqual(
      byPayment.data.map((d) => d.id),
      [all.data[2]!.id],
    );
    assert.deepEqual(json<{ data: Delivery[] }>(await wh('deliveries', '--mode', 'live', '--json')).data, []);

    const one = json<Delivery>(await wh('delivery', all.data[0]!.id, '--mode', 'test', '--json'));
    assert.equal(one.attempts!.length, 1);
    assert.equal(one.attempts![0]!.status, 200);
    assert.equal(one.attempts![0]!.outcome, 'delivered');
    const human = await wh('delivery', all.data[0]!.id, '--mode', 'test');
    assert.match(human.stdout, /^Delivery whd_/);
    assert.match(human.stdout, /#\s+STARTED\s+HTTP/);
  });

  it('disable fails the pending deliveries; enable, resend-failed --since and resend send them again', async () => {
    receiver.respond = (_req, res) => res.writeHead(500).end();
    const since = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
    await newPayment();
    await runtime.jobs.drain();
    const disabled = json<Endpoint>(await wh('disable', '--mode', 'test', '--json'));
    assert.equal(disabled.enabled, false);
    assert.equal(disabled.disabledReason, 'disabled by the merchant');
    const failed = json<{ data: Delivery[] }>(await wh('deliveries', '--mode', 'test', '--status', 'failed', '--json'));
    assert.equal(failed.data.length, 1);
    expectFailure(await wh('resend-failed', '--mode', 'test', '--since', since), 1, /disabled.*\(invalid_state\)/);

    receiver.respond = (_req, res) => res.writeHead(200).end();
    assert.equal(json<Endpoint>(await wh('enable', '--mode', 'test', '--json')).enabled, true);
    assert.deepEqual(json(await wh('resend-failed', '--mode', 'test', '--since', since, '--json')), { resent: 1 });
    assert.deepEqual(json(await wh('resend-failed', '--mode', 'test', '--since', since, '--json')), { resent: 0 });
    await runtime.jobs.drain();
    assert.equal(receiver.received.at(-1)!.headers['webhook-id'], failed.data[0]!.eventId);

    const resent = json<Delivery>(await wh('resend', failed.data[0]!.id, '--mode', 'test', '--json'));
    assert.equal(resent.trigger, 'resend');
    assert.equal(resent.eventId, failed.data[0]!.eventId);
    assert.match((await wh('resend', failed.data[0]!.id, '--mode', 'test')).stdout, /^Queued delivery whd_/);
  });

  it('update, replay --since, delete', async () => {
    const updated = json<Endpoint>(
      await wh(
        'update',
        '--mode',
        'test',
        '--url',
        `${receiver.url}/v2`,
        '--event-types',
        'payment.created,payment.cancelled',
        '--json',
      ),
    );
    assert.equal(updated.url, `${receiver.url}/v2`);
    assert.deepEqual(updated.eventTypes, ['payment.created', 'payment.cancelled']);

    const deleted = json(await wh('delete', '--mode', 'test', '--json'));
    assert.deepEqual(deleted, { endpointId, deleted: true });
    expectFailure(
      await wh('get', '--mode', 'test'),
      1,
      /No webhook endpoint is registered for test mode \(invalid_params\)/,
    );

    const created = json<{ endpointId: string }>(
      await wh('create', '--mode', 'test', '--url', `${receiver.url}/new`, '--json'),
    );
    const since = String(Math.floor(Date.now() / 1000) - 3600);
    // The three payments' creation events reach the new endpoint; the test event is never replayed.
    assert.deepEqual(json(await wh('replay', '--mode', 'test', '--since', since, '--json')), { replayed: 3 });
    await runtime.jobs.drain();
    assert.equal(receiver.received.filter((r) => r.path === '/new').length, 3);
    const replays = json<{ data: Delivery[] }>(await wh('deliveries', '--mode', 'test', '--json')).data.filter(
      (d) => d.trigger === 'replay',
    );
    assert.equal(replays.length, 3);
    assert.ok(replays.every((d) => d.status === 'delivered'));
    assert.notEqual(created.endpointId, endpointId);
  });

  it('refusals: exit 1 with the code for the domain, exit 2 for the command line', async () => {
    const results = await inTurn([
      whArgs('create', '--mode', 'test', '--url', `${receiver.url}/again`),
      whArgs('create', '--mode', 'live', '--url', 'https://127.0.0.1/live'),
      ['admin', 'webhook-endpoint', 'get', '--merchant', 'mer_nobody', '--mode', 'test'],
      whArgs('replay', '--mode', 'test', '--since', '0'),
      whArgs('delivery', 'whd_AAAAAAAAAAAAAAAAAAAAAAAA', '--mode', 'test'),
    ]);
    expectFailure(results[0]!, 1, /already exists for test mode.*\(invalid_state\)/);
    expectFailure(results[1]!, 1, /127\.0\.0\.1 is not publicly routable \(params_validation\)/);
    expectFailure(results[2]!, 1, /No merchant with id mer_nobody \(merchant_not_found\)/);
    expectFailure(results[3]!, 1, /14 days.*\(params_validation\)/);
    expectFailure(results[4]!, 1, /No webhook delivery.*\(invalid_params\)/);

    const usage = await inTurn([
      ['admin', 'webhook-endpoint', 'get', '--mode', 'test'],
      whArgs('get'),
      whArgs('get', '--mode', 'prod'),
      whArgs('test', '--mode', 'test', '--type', 'payment.refunded'),
      whArgs('resend-failed', '--mode', 'test', '--since', 'yesterday'),
      whArgs('delivery', '--mode', 'test'),
      whArgs('list', '--mode', 'test'),
      ['admin', 'webhook-endpoint', 'frob'],
      whArgs('deliveries', '--mode', 'test', '--status', 'abandoned'),
    ]);
    const patterns = [
      /--merchant is required \(see "paygate admin webhook-endpoint get --help"\)/,
      /--mode is required/,
      /--mode must be test or live/,
      /unknown event type "payment\.refunded"/,
      /--since takes Unix seconds or an ISO 8601 date/,
      /expected 1 argument/,
      /--mode does not apply/,
      /unknown webhook-endpoint command "frob" \(see "paygate admin webhook-endpoint --help"\)/,
      /--status must be pending, delivered or failed/,
    ];
    usage.forEach((result, i) => expectFailure(result, 2, patterns[i]!));
  });

  it('--help prints the synopses and exits 0', async () => {
    const [all, one] = await Promise.all([
      run('admin', 'webhook-endpoint', '--help'),
      run('admin', 'webhook-endpoint', 'resend-failed', '-h'),
    ]);
    assert.equal(all.code, 0);
    for (const command of ['create', 'rotate', 'delete', 'list', 'enable', 'test', 'deliveries', 'replay']) {
      assert.match(all.stdout, new RegExp(`^  ${command} `, 'm'));
    }
    assert.equal(one.code, 0);
    assert.match(
      one.stdout,
      /^Usage: paygate admin webhook-endpoint resend-failed --merchant <id> --mode test\|live --since <time>/,
    );
  });
});
