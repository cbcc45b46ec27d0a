/**
 * The wallet SDK in a real browser (headless Chromium, see test/collect/browser.ts): the SDK's sources bundled for
 * the browser with esbuild (a Node.js built-in anywhere in its graph fails the build, and so this file), served with
 * a small page from a site on another origin than the Paygate server, and used by the page against a real server on
 * the run's local chains: read a payment and its options, then pay a Solana option with a @solana/kit keypair signer
 * made in the page through Web Crypto's Ed25519, and a gasless EVM option with an EIP-1193 provider of the page's
 * own. Node only creates the payment, funds the buyer, runs the server's jobs and checks the outcome on chain.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build, type BuildResult } from 'esbuild';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { createKeyPairSignerFromBytes, type Address } from '@solana/kit';
import { getAddress, parseAbi, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type * as Sdk from '@paygate/sdk-wallet';
import { fundAccount } from '../../server/src/chains/faucet.js';
import { associatedTokenAccount } from '../../server/src/chains/solana/transfer.js';
import { launchChromium } from '../collect/browser.js';
import { LOCAL, startCheckoutHarness, type CheckoutHarness, type StatusAnswer } from '../gateway/checkout.js';
import { expectJson } from '../gateway/harness.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { driveJobsWhile, receiptOf } from '../helpers/wait.js';
import type * as Wallet from './browser/wallet.js';

const repo = new URL('../../', import.meta.url).pathname;

/** What the page puts on `window` once its modules loaded. */
interface PageGlobals {
  paygate: { sdk: typeof Sdk; wallet: typeof Wallet };
}

/**
 * Bundles an entry point as a web app's bundler would, through the packages' source export condition. esbuild cannot
 * resolve a Node.js built-in for the browser: one anywhere in the graph fails the build, and `before` with it.
 */
async function bundle(entryPoint: string): Promise<BuildResult<{ write: false; metafile: true }>> {
  return build({
    entryPoints: [entryPoint],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['@paygate/source'],
    write: false,
    metafile: true,
    absWorkingDir: repo,
    logLevel: 'silent',
  });
}

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Wallet</title><link rel="icon" href="data:,">
</head><body><script type="module">
import * as sdk from './sdk.js';
import * as wallet from './wallet.js';
window.paygate = { sdk, wallet };
</script></body></html>`;

/** A tiny static site (the wallet's web app) serving the page and the two bundles. */
async function startSite(files: Record<string, string>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    if (path === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
    } else if (Object.hasOwn(files, path)) {
      res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(files[path]);
    } else {
      res.writeHead(404).end();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

const balanceOf = parseAbi(['function balanceOf(address) view returns (uint256)']);

describe('sdkWallet.browser', function () {
  this.timeout(180_000);

  let h: CheckoutHarness;
  let browser: Browser;
  let site: { url: string; server: Server };
  let sdkBuild: BuildResult<{ write: false; metafile: true }>;
  let context: BrowserContext;
  let page: Page;
  /** Uncaught page errors and console errors: a CORS refusal, a failed load, a missing global show up here. */
  let problems: string[];
  /** The page's requests to the Paygate server. */
  let gatewayRequests: Request[];

  before(async () => {
    let walletBuild: BuildResult<{ write: false; metafile: true }>;
    [h, browser, sdkBuild, walletBuild] = await Promise.all([
      startCheckoutHarness(),
      launchChromium(),
      bundle('sdk-wallet/src/index.ts'),
      bundle('test/sdk/browser/wallet.ts'),
    ]);
    site = await startSite({
      '/sdk.js': sdkBuild.outputFiles[0]!.text,
      '/wallet.js': walletBuild.outputFiles[0]!.text,
    });
  });
  after(async () => {
    await browser?.close();
    if (site) {
      site.server.closeAllConnections();
      await new Promise((resolve) => site.server.close(resolve));
    }
    await h?.close();
  });

  beforeEach(async () => {
    problems = [];
    gatewayRequests = [];
    context = await browser.newContext();
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('request', (request) => {
      if (request.url().startsWith(h.server.url)) gatewayRequests.push(request);
    });
    await page.goto(site.url);
    await page.waitForFunction(() => 'paygate' in window, undefined, { timeout: 10_000 });
  });
  afterEach(async () => {
    await context?.close();
  });

  /** A payment created through the merchant API, with the link a wallet scans. */
  async function createPayment(): Promise<{ paymentId: string; gatewayUrl: string }> {
    const response = await fetch(`${h.server.url}/v1/merchant/payment`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Api-Key': h.account.testKey,
        'Merchant-Id': h.account.merchantId,
      },
      body: JSON.stringify({ amount: { unit: 'iso4217/USD', value: '1250' }, referenceId: 'order_browser' }),
    });
    return expectJson(response, 201);
  }

  const statusOf = async (paymentId: string) =>
    expectJson<StatusAnswer>(await h.call('GET', `/v1/gateway/payment/${paymentId}/status`), 200);

  /**
   * Runs the server's jobs while the page pays: once the page has confirmed (processing), each round drains the due
   * jobs and moves the business clock on, until the page's `pay` (long-polling the status) settles.
   */
  function whilePaying<T>(paymentId: string, paying: Promise<T>): Promise<T> {
    return driveJobsWhile(`the page's pay of ${paymentId} to settle`, paying, h, {
      stepMs: 2_000,
      shouldDrive: async () => (await statusOf(paymentId)).status === 'processing',
    });
  }

  /** Which of the page's gateway requests were made, as `METHOD path`, and the headers the browser sent. */
  async function sentToGateway(): Promise<{ calls: string[]; headers: Record<string, string>[] }> {
    return {
      calls: gatewayRequests.map((r) => `${r.method()} ${new URL(r.url()).pathname}`),
      headers: await Promise.all(gatewayRequests.map((r) => r.allHeaders())),
    };
  }

  it('the bundle holds only the SDK, openapi-fetch and @solana/kit’s packages, and imports nothing else', () => {
    const inputs = Object.keys(sdkBuild.metafile.inputs);
    const outside = inputs.filter(
      (f) =>
        !/^(sdk-wallet\/src\/|client-core\/src\/|node_modules\/openapi-fetch\/|node_modules\/@solana\/[\w-]+\/)/.test(
          f,
        ),
    );
    assert.deepEqual(outside, []);
    assert.ok(inputs.includes('sdk-wallet/src/index.ts'));
    const outputs = Object.values(sdkBuild.metafile.outputs);
    assert.equal(outputs.length, 1);
    assert.deepEqual(outputs[0]!.imports, [], 'nothing left for the browser to resolve');
    const code = sdkBuild.outputFiles[0]!.text;
    assert.doesNotMatch(code, /\brequire\(|from ['"]node:|import\(['"]/);
    // As the README says, of kit only the codecs, transactions and signers are kept: none of its RPC clients.
    const kept = Object.entries(outputs[0]!.inputs)
      .filter(([file, { bytesInOutput }]) => bytesInOutput > 0 && file.startsWith('node_modules/@solana/'))
      .map(([file]) => file.split('/')[2]!);
    assert.ok(kept.includes('signers') && kept.includes('transactions'), kept.join(', '));
    assert.deepEqual(
      kept.filter((name) => /rpc|subscription|websocket|kit/.test(name)),
      [],
    );
  });

  it('reads the payment and its options from another origin: getPayment, getOptions, and a PaygateError', async () => {
    const { paymentId, gatewayUrl } = await createPayment();
    const [evm, solana] = await Promise.all([h.buyer(100_000_000n, 0n), h.solanaBuyer()]);
    assert.notEqual(new URL(site.url).origin, new URL(h.server.url).origin);

    const read = await page.evaluate(
      async ({ baseUrl, apiKey, link, accounts }) => {
        const { sdk } = (window as unknown as PageGlobals).paygate;
        const paygate = new sdk.PaygateWallet({ baseUrl, apiKey });
        const payment = await paygate.getPayment(sdk.parsePaymentLink(link));
        const options = await paygate.getOptions({ paymentLink: link, accounts, includePaymentInfo: true });
        const refused = await paygate.getPayment('pay_AAAAAAAAAAAAAAAAAAAAAAAA').then(
          () => null,
          (e: InstanceType<typeof sdk.PaygateError>) => ({
            isPaygateError: e instanceof sdk.PaygateError,
            code: e.code,
            status: e.status,
            requestId: e.requestId,
          }),
        );
        return { platform: sdk.detectPlatform(), payment, options, refused };
      },
      { baseUrl: h.server.url, apiKey: h.wallet.testKey, link: gatewayUrl, accounts: [evm.caip10, solana.caip10] },
    );

    assert.equal(read.platform, 'web');
    assert.equal(read.payment.status, 'requires_action');
    assert.deepEqual(read.payment.amount.value, '1250');
    assert.equal(read.options.paymentId, paymentId);
    assert.equal(read.options.info?.merchant.name, read.payment.merchant.name);
    const offered = read.options.options.map((o) => `${o.account} ${o.amount.unit} ${o.amount.value}`);
    assert.ok(offered.includes(`${evm.caip10} caip19/${h.tusd} 12500000`), offered.join('\n'));
    assert.ok(offered.includes(`${solana.caip10} caip19/${h.solanaTusd} 12500000`), offered.join('\n'));
    assert.ok(read.options.options.every((o) => o.paymentId === paymentId && o.actions.length > 0));
    // The request id comes through CORS's exposed headers.
    assert.deepEqual(
      { ...read.refused, requestId: typeof read.refused?.requestId },
      { isPaygateError: true, code: 'payment_not_found', status: 404, requestId: 'string' },
    );

    const sent = await sentToGateway();
    assert.deepEqual(sent.calls, [
      `GET /v1/gateway/payment/${paymentId}`,
      `POST /v1/gateway/payment/${paymentId}/options`,
      'GET /v1/gateway/payment/pay_AAAAAAAAAAAAAAAAAAAAAAAA',
    ]);
    for (const headers of sent.headers) {
      assert.equal(headers['api-key'], h.wallet.testKey);
      assert.equal(headers['sdk-platform'], 'web');
      assert.equal(headers['svc-version'], '2026-02-18');
      assert.equal(headers.origin, new URL(site.url).origin);
    }
    // The refused getPayment: Chromium reports the 404 itself, and nothing else went wrong.
    assert.deepEqual(
      problems.filter((p) => !/404/.test(p)),
      [],
    );
    assert.ok(problems.length <= 1, problems.join('\n'));
  });

  it('pays a Solana option with a kit keypair signer made in the page (Web Crypto Ed25519), with an app id', async () => {
    // The buyer's secret key, made in Node and handed to the page as a wallet would hold it: 32 private bytes, then
    // the 32 of the public key.
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const secretKey = [
      ...Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url'),
      ...Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'),
    ];
    const address = (await createKeyPairSignerFromBytes(new Uint8Array(secretKey))).address;
    await h.solana.faucet.mintTokens(address, h.solana.mints.tusd.address, 100_000_000n);
    const { paymentId, gatewayUrl } = await createPayment();

    const paid = await whilePaying(
      paymentId,
      page.evaluate(
        async ({ baseUrl, appId, link, secretKey, caip2, unit }) => {
          const { sdk, wallet } = (window as unknown as PageGlobals).paygate;
          const signer = await wallet.solanaSigner(secretKey);
          const paygate = new sdk.PaygateWallet({ baseUrl, appId, clientId: 'browser-wallet-1' });
          const { options } = await paygate.getOptions({ paymentLink: link, accounts: [`${caip2}:${signer.address}`] });
          const option = options.find((o) => o.amount.unit === unit);
          if (!option) throw new Error(`no option in ${unit}: ${JSON.stringify(options)}`);
          const signed: Sdk.ConfirmPaymentRequest[] = [];
          // Assigned, not written in a literal: tsx names functions it compiles in object literals with a helper
          // (__name) that exists in Node, not in the page this function is sent to.
          const payOptions: Sdk.PayOptions = { maxPollMs: 5_000 };
          payOptions.onSigned = function (s) {
            signed.push(s.request);
          };
          const final = await paygate.pay(option, { solana: signer }, payOptions);
          return {
            address: signer.address,
            keyAlgorithm: signer.keyPair.privateKey.algorithm.name,
            actions: option.actions.map((a) => a.type),
            value: option.amount.value,
            results: signed.map((r) => r.results),
            final,
          };
        },
        {
          baseUrl: h.server.url,
          appId: h.wallet.testApp,
          link: gatewayUrl,
          secretKey,
          caip2: h.solana.caip2,
          unit: `caip19/${h.solanaTusd}`,
        },
      ),
    );

    assert.equal(paid.address, address);
    assert.equal(paid.keyAlgorithm, 'Ed25519');
    assert.deepEqual(paid.actions, ['build']);
    // Signed once; confirm carried the whole signed transaction, in base64: Paygate broadcast it, the page never did.
    assert.equal(paid.results.length, 1);
    assert.equal(paid.results[0]!.length, 1);
    assert.match(paid.results[0]![0] as string, /^[A-Za-z0-9+/]+={0,2}$/);
    assert.equal(paid.final.status, 'succeeded');
    assert.equal(paid.final.isFinal, true);

    // From Node: the server says succeeded, with the same transaction, and the tokens moved.
    const status = await statusOf(paymentId);
    assert.equal(status.status, 'succeeded');
    assert.equal(status.info!.txId, paid.final.info!.txId);
    assert.match(status.info!.txId, /^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
    assert.equal(await solanaTokenBalance(address), 100_000_000n - BigInt(paid.value));

    const sent = await sentToGateway();
    assert.deepEqual(sent.calls.slice(0, 3), [
      `POST /v1/gateway/payment/${paymentId}/options`,
      `POST /v1/gateway/payment/${paymentId}/fetch`,
      `POST /v1/gateway/payment/${paymentId}/confirm`,
    ]);
    assert.ok(sent.calls.slice(3).every((c) => c === `GET /v1/gateway/payment/${paymentId}/status`));
    for (const headers of sent.headers) {
      assert.deepEqual(
        [headers['app-id'], headers['client-id'], headers['api-key'], headers['sdk-platform']],
        [h.wallet.testApp, 'browser-wallet-1', undefined, 'web'],
      );
    }
    assert.deepEqual(problems, []);
  });

  async function solanaTokenBalance(owner: Address): Promise<bigint> {
    const ata = await associatedTokenAccount(owner, h.solana.mints.tusd.address);
    const account = await h.chains.solana[0]!.rpc.getAccountInfo(ata, { encoding: 'base64' }).send();
    return account.value ? Buffer.from(account.value.data[0], 'base64').readBigUInt64LE(64) : 0n;
  }

  describe('EVM', () => {
    useChainSnapshots();

    it('pays a gasless EVM option with an EIP-1193 provider of the page (eth_signTypedData_v4 only)', async () => {
      const key: Hex = generatePrivateKey();
      const buyer = privateKeyToAccount(key);
      // TUSD only: the buyer has no ETH, and needs none.
      await fundAccount(h.chains.local!, { account: `${LOCAL}:${buyer.address}`, asset: h.tusd, amount: '100000000' });
      const { paymentId, gatewayUrl } = await createPayment();

      const paid = await whilePaying(
        paymentId,
        page.evaluate(
          async ({ baseUrl, apiKey, link, key, unit }) => {
            const { sdk, wallet } = (window as unknown as PageGlobals).paygate;
            const ethereum = wallet.evmProvider(key as `0x${string}`, 31337);
            const paygate = new sdk.PaygateWallet({ baseUrl, apiKey });
            // As the README's wallet does: the account and chain from the provider.
            const [account] = (await ethereum.request({ method: 'eth_requestAccounts' })) as string[];
            const chainId = BigInt((await ethereum.request({ method: 'eth_chainId' })) as string);
            const { options } = await paygate.getOptions({
              paymentLink: link,
              accounts: [`eip155:${chainId}:${account}`],
            });
            const option = options.find((o) => o.amount.unit === unit);
            if (!option) throw new Error(`no option in ${unit}: ${JSON.stringify(options)}`);
            const final = await paygate.pay(option, { eip155: ethereum }, { maxPollMs: 5_000 });
            return { account, value: option.amount.value, calls: ethereum.calls, final };
          },
          { baseUrl: h.server.url, apiKey: h.wallet.testKey, link: gatewayUrl, key, unit: `caip19/${h.tusd}` },
        ),
      );

      assert.equal(paid.account, buyer.address);
      // Only the account, the chain (checked before signing, and again before the action) and one signature.
      assert.deepEqual(
        paid.calls.filter((c) => c !== 'eth_chainId'),
        ['eth_requestAccounts', 'eth_signTypedData_v4'],
      );
      assert.ok(paid.calls.includes('eth_chainId'));
      assert.equal(paid.final.status, 'succeeded');

      const status = await statusOf(paymentId);
      assert.equal(status.status, 'succeeded');
      assert.equal(status.info!.txId, paid.final.info!.txId);
      const receipt = await receiptOf(h.local.clients.public, status.info!.txId as Hex);
      assert.equal(receipt.status, 'success');
      const balance = await h.local.clients.public.readContract({
        address: h.local.testUsd,
        abi: balanceOf,
        functionName: 'balanceOf',
        args: [getAddress(buyer.address)],
      });
      assert.equal(balance, 100_000_000n - BigInt(paid.value));
      assert.ok((await sentToGateway()).calls.includes(`POST /v1/gateway/payment/${paymentId}/confirm`));
      assert.deepEqual(problems, []);
    });
  });
});
