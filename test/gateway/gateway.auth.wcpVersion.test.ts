import assert from 'node:assert/strict';
import { sharedChains } from '../helpers/chain.js';
import { expectError, expectJson, operations, startGatewayHarness, type GatewayHarness } from './harness.js';

const WALLET_ORIGIN = 'https://wallet.example';

/** `WCP-Version`, WalletConnect Pay's name for `Svc-Version` (docs/decisions.md §3, §28), on every gateway operation. */
describe('gateway.auth: WCP-Version', () => {
  let h: GatewayHarness;
  let paymentId: string;
  before(async () => {
    h = await startGatewayHarness({ chains: await sharedChains(), config: { PAYGATE_CORS_ORIGINS: WALLET_ORIGIN } });
    paymentId = await h.createPayment();
  });
  after(() => h.close());

  const expectOnEvery = async (headers: Record<string, string | null>, status: number, code: string) => {
    for (const op of operations) {
      await expectError(await h.call(op.method, op.path(paymentId), { headers, body: op.body }), status, code);
    }
  };

  it('refuses what Svc-Version refuses, with the same codes', async () => {
    for (const version of ['v1', '2026-02-30', '2026-02-30.preview', '2026-02-18.beta', '2026-02-18preview']) {
      await expectOnEvery({ 'WCP-Version': version }, 400, 'invalid_api_version');
    }
    await expectOnEvery({ 'WCP-Version': '2026-02-17' }, 400, 'api_version_downgrade');
    await expectOnEvery({ 'WCP-Version': '2026-02-17.preview' }, 400, 'api_version_downgrade');
    await expectOnEvery({ 'WCP-Version': '2026-03-01' }, 400, 'unknown_api_version');
    await expectOnEvery({ 'WCP-Version': '2026-03-01.preview' }, 400, 'unknown_api_version');
    await expectOnEvery({ 'WCP-Version': '2026-02-18\u00e9' }, 400, 'header_not_ascii');
  });

  it('400 invalid_api_version when Svc-Version and WCP-Version differ', async () => {
    await expectOnEvery(
      { 'Svc-Version': '2026-02-18', 'WCP-Version': '2026-02-19.preview' },
      400,
      'invalid_api_version',
    );
  });

  it('serves the published version and the published preview, and answers the version served in WCP-Version', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, '2026-02-18'],
      [{ 'WCP-Version': '2026-02-18' }, '2026-02-18'],
      [{ 'WCP-Version': '2026-02-19.preview' }, '2026-02-19.preview'],
      [{ 'Svc-Version': '2026-02-19.preview', 'WCP-Version': '2026-02-19.preview' }, '2026-02-19.preview'],
      [{ 'Svc-Version': '2026-02-18' }, '2026-02-18'],
    ];
    for (const [headers, served] of cases) {
      for (const path of [`/v1/gateway/payment/${paymentId}`, `/v1/gateway/payment/${paymentId}/status`]) {
        const answer = await h.call('GET', path, { headers });
        assert.equal(answer.headers.get('wcp-version'), served, `${path} ${JSON.stringify(headers)}`);
        await expectJson(answer, 200);
      }
    }
  });

  it('a browser wallet may send the headers WalletConnect Pay’s SDK sends, and read WCP-Version', async () => {
    const preflight = await fetch(`${h.server.url}/v1/gateway/payment/${paymentId}/options`, {
      method: 'OPTIONS',
      headers: {
        Origin: WALLET_ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers':
          'api-key,api-version,content-type,sdk-name,sdk-platform,sdk-version,wcp-version',
      },
    });
    assert.equal(preflight.status, 204);
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    for (const header of [
      'api-key',
      'api-version',
      'content-type',
      'sdk-name',
      'sdk-platform',
      'sdk-version',
      'wcp-version',
    ]) {
      assert.ok(allowed.includes(header), `${header} is allowed`);
    }
    const answer = await h.call('GET', `/v1/gateway/payment/${paymentId}`, { headers: { Origin: WALLET_ORIGIN } });
    assert.match(answer.headers.get('access-control-expose-headers') ?? '', /WCP-Version/);
    await expectJson(answer, 200);
  });
});
