import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PaygateWallet, SDK_NAME, SDK_VERSION, SVC_VERSION, createGatewayClient } from '@paygate/sdk-wallet';
import { captureLogs } from '../helpers/logs.js';
import { startWalletHarness, type WalletHarness } from './walletHelpers.js';
import { eventually } from '../helpers/wait.js';

describe('sdkWallet.payments', () => {
  let h: WalletHarness;
  /** Resolves once a long poll waits on the server: the SDK's request has begun its wait. */
  const pollsWaiting = () => eventually('a long poll waiting', () => h.runtime.paymentNotifier.waiting >= 1);
  before(async () => {
    h = await startWalletHarness();
  });
  after(() => h.close());

  it('SDK_VERSION is package.json’s version; SVC_VERSION is the contract’s', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../sdk-wallet/package.json', import.meta.url), 'utf8'));
    assert.equal(SDK_VERSION, pkg.version);
    assert.equal(SDK_NAME, pkg.name);
    const contract = readFileSync(new URL('../../openapi/bundled/gateway.yaml', import.meta.url), 'utf8');
    assert.match(contract, new RegExp(`^  version: '${SVC_VERSION}'$`, 'm'));
  });

  describe('both auth modes, with the Sdk-* and Svc-Version headers, as the server logs them', () => {
    let logged: WalletHarness;
    let logs: ReturnType<typeof captureLogs>;
    before(async () => {
      logs = captureLogs('info');
      logged = await startWalletHarness({ logger: logs.logger });
    });
    after(() => logged.close());

    const lastRequestLine = (route: string) =>
      logs
        .lines()
        .filter((l) => l.msg === 'request' && l.route === route)
        .at(-1)!;

    it('Api-Key: sends the wallet key, the contract version and the SDK’s name, version and platform', async () => {
      const { paymentId } = await logged.createPayment();
      const from = logged.proxy.log.length;
      const info = await logged.wallet().getPayment(paymentId);
      assert.equal(info.status, 'requires_action');

      const [sent] = logged.proxy.log.slice(from);
      assert.equal(sent!.headers['api-key'], logged.credentials.testKey);
      assert.equal(sent!.headers['app-id'], undefined);
      assert.equal(sent!.headers['client-id'], undefined);
      assert.equal(sent!.headers['svc-version'], '2026-02-18');
      assert.deepEqual(
        [sent!.headers['sdk-name'], sent!.headers['sdk-version'], sent!.headers['sdk-platform']],
        ['@paygate/sdk-wallet', SDK_VERSION, 'node'],
      );
      const line = lastRequestLine('/v1/gateway/payment/{id}');
      assert.equal(line.status, 200);
      assert.deepEqual(line.sdk, { name: '@paygate/sdk-wallet', version: SDK_VERSION, platform: 'node' });
      assert.equal(typeof line.credential, 'string');
      assert.ok(!logs.text().includes(logged.credentials.testKey), 'the key never reaches the log');
    });

    it('App-Id + Client-Id: the public app mode, with the platform overridden', async () => {
      const { paymentId } = await logged.createPayment();
      const from = logged.proxy.log.length;
      const wallet = logged.wallet({
        apiKey: undefined,
        appId: logged.credentials.testApp,
        clientId: 'install-7f3c',
        sdkPlatform: 'web',
      });
      const status = await wallet.getPaymentStatus(paymentId);
      assert.equal(status.status, 'requires_action');
      const [sent] = logged.proxy.log.slice(from);
      assert.equal(sent!.headers['api-key'], undefined);
      assert.equal(sent!.headers['app-id'], logged.credentials.testApp);
      assert.equal(sent!.headers['client-id'], 'install-7f3c');
      const line = lastRequestLine('/v1/gateway/payment/{id}/status');
      assert.equal(line.status, 200);
      assert.equal(line.clientId, 'install-7f3c');
      assert.deepEqual(line.sdk, { name: '@paygate/sdk-wallet', version: SDK_VERSION, platform: 'web' });
    });

    it('Svc-Version can be overridden, or left out to use the credential’s pin', async () => {
      const { paymentId } = await logged.createPayment();
      const from = logged.proxy.log.length;
      await logged.wallet({ svcVersion: null }).getPayment(paymentId);
      await logged.wallet({ svcVersion: '2026-02-18' }).getPayment(paymentId);
      const [none, pinned] = logged.proxy.log.slice(from);
      assert.equal(none!.headers['svc-version'], undefined);
      assert.equal(pinned!.headers['svc-version'], '2026-02-18');
      await assert.rejects(logged.wallet({ svcVersion: '2027-01-01' }).getPayment(paymentId), {
        name: 'PaygateError',
        status: 400,
        code: 'unknown_api_version',
      });
    });

    it('the constructor refuses a missing or double credential', () => {
      const baseUrl = logged.server.url;
      const bad: unknown[] = [
        { baseUrl },
        { baseUrl, apiKey: '' },
        { baseUrl, appId: logged.credentials.testApp },
        { baseUrl, apiKey: logged.credentials.testKey, appId: logged.credentials.testApp, clientId: 'c' },
        { baseUrl, appId: logged.credentials.testApp, clientId: '' },
        { apiKey: logged.credentials.testKey },
      ];
      for (const options of bad) {
        assert.throws(() => new PaygateWallet(options as never), TypeError, JSON.stringify(options));
      }
    });
  });

  it('getPayment reads what the buyer is paying', async () => {
    const { paymentId } = await h.createPayment({ value: '4200' });
    const info = await h.wallet().getPayment(paymentId);
    assert.equal(info.status, 'requires_action');
    assert.deepEqual(
      [info.amount.unit, info.amount.value, info.amount.display.assetSymbol],
      ['iso4217/USD', '4200', 'USD'],
    );
    assert.equal(info.merchant.name, 'Northwind Coffee');
    assert.equal(info.buyer, null);
    assert.equal(typeof info.expiresAt, 'number');
  });

  it('getPaymentStatus answers at once without maxPollMs', async () => {
    const { paymentId } = await h.createPayment();
    const from = h.proxy.log.length;
    const status = await h.wallet().getPaymentStatus(paymentId);
    assert.deepEqual(status, {
      status: 'requires_action',
      isFinal: false,
      pollInMs: 2000,
      info: null,
      failureCode: null,
    });
    assert.deepEqual(h.exchanges(from), [`GET /v1/gateway/payment/${paymentId}/status → 200`]);
  });

  it('a long poll (maxPollMs) answers as soon as the payment is final', async () => {
    const { paymentId } = await h.createPayment();
    const from = h.proxy.log.length;
    const started = Date.now();
    const polling = h.wallet().getPaymentStatus(paymentId, { maxPollMs: 20_000 });
    await pollsWaiting();
    await h.simulate(paymentId, 'failed');
    const status = await polling;
    assert.deepEqual([status.status, status.isFinal, status.pollInMs], ['failed', true, null]);
    assert.ok(Date.now() - started < 5000, 'woken by the change, not by the time limit');
    assert.equal(h.proxy.log[from]!.path, `/v1/gateway/payment/${paymentId}/status?maxPollMs=20000`);
  });

  it('waitForFinal long-polls through processing until the payment is final', async () => {
    const { paymentId } = await h.createPayment();
    const waiting = h.wallet().waitForFinal(paymentId, { maxPollMs: 300 });
    await pollsWaiting();
    await h.simulate(paymentId, 'processing');
    // The SDK saw processing, which is not final, and polls again.
    const seen = h.proxy.log.length;
    await eventually('a poll after processing', () => h.proxy.log.length > seen);
    await h.simulate(paymentId, 'succeeded');
    const final = await waiting;
    assert.deepEqual([final.status, final.isFinal], ['succeeded', true]);
    assert.equal(typeof final.info?.txId, 'string');
    const polls = h.proxy.log.filter((e) => e.path.startsWith(`/v1/gateway/payment/${paymentId}/status`));
    assert.ok(polls.length >= 2, `${polls.length} polls`);
    assert.ok(polls.every((e) => e.path.endsWith('?maxPollMs=300')));
  });

  it('cancelPayment cancels, is idempotent, and is refused once the payment is processing', async () => {
    const wallet = h.wallet();
    const { paymentId } = await h.createPayment();
    const cancelled = await wallet.cancelPayment(paymentId);
    assert.deepEqual(cancelled, {
      status: 'cancelled',
      isFinal: true,
      pollInMs: null,
      info: null,
      failureCode: null,
      paymentId,
      cancelledReason: 'cancelled_by_user',
      cancelledAt: cancelled.cancelledAt,
    });
    assert.deepEqual(await wallet.cancelPayment(paymentId), cancelled);
    assert.equal((await wallet.getPayment(paymentId)).status, 'cancelled');

    const { paymentId: paying } = await h.createPayment();
    await h.simulate(paying, 'processing');
    await assert.rejects(wallet.cancelPayment(paying), { name: 'PaygateError', status: 409, code: 'invalid_state' });
  });

  describe('AbortSignal', () => {
    it('cancels a long poll in flight: the call rejects with the signal’s reason at once', async () => {
      const { paymentId } = await h.createPayment();
      const controller = new AbortController();
      const reason = new Error('buyer closed the sheet');
      const started = Date.now();
      const polling = h.wallet().getPaymentStatus(paymentId, { maxPollMs: 20_000, signal: controller.signal });
      setTimeout(() => controller.abort(reason), 100);
      await assert.rejects(polling, (e) => e === reason);
      assert.ok(Date.now() - started < 2000, `aborted after ${Date.now() - started} ms`);
    });

    it('cancels waitForFinal; its timeoutMs gives up with a TimeoutError', async () => {
      const { paymentId } = await h.createPayment();
      const controller = new AbortController();
      const waiting = h.wallet().waitForFinal(paymentId, { signal: controller.signal });
      setTimeout(() => controller.abort(), 100);
      await assert.rejects(waiting, { name: 'AbortError' });
      await assert.rejects(h.wallet().waitForFinal(paymentId, { timeoutMs: 150 }), { name: 'TimeoutError' });
    });

    it('an already aborted signal sends nothing', async () => {
      const { paymentId } = await h.createPayment();
      const from = h.proxy.log.length;
      await assert.rejects(h.wallet().getPayment(paymentId, { signal: AbortSignal.abort() }), { name: 'AbortError' });
      assert.equal(h.proxy.log.length, from);
    });
  });

  it('the raw client covers every operation of the contract, typed, with the same headers', async () => {
    const { paymentId } = await h.createPayment();
    const client = createGatewayClient({ baseUrl: h.proxy.url, appId: h.credentials.testApp, clientId: 'raw' });
    const from = h.proxy.log.length;
    const { data, error } = await client.GET('/v1/gateway/payment/{id}/status', {
      params: { path: { id: paymentId }, query: { maxPollMs: 0 } },
    });
    assert.equal(error, undefined);
    assert.equal(data?.status, 'requires_action');
    const missing = await client.GET('/v1/gateway/payment/{id}', {
      params: { path: { id: 'pay_AAAAAAAAAAAAAAAAAAAAAAAA' } },
    });
    assert.equal(missing.error?.code, 'payment_not_found');
    assert.equal(h.proxy.log[from]!.headers['client-id'], 'raw');
    assert.equal(h.proxy.log[from]!.headers['sdk-name'], '@paygate/sdk-wallet');
  });
});
