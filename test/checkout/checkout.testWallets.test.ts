/**
 * The checkout's test wallets in a real Chromium, on a blank page whose script is a minimal dapp: an EIP-6963 listener
 * and the app side of the Wallet Standard's registration. Everything the page gets back is real: signatures by the
 * test's keys that Node verifies, chain switches that end on anvil, a Solana transfer that lands on the local chain.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  appendTransactionMessageInstruction,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getPublicKeyFromAddress,
  getTransactionDecoder,
  getTransactionEncoder,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  verifySignature,
  type Address as SolanaAddress,
  type KeyPairSigner,
  type SignatureBytes,
  type Transaction,
  type TransactionSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { getAddress, parseEther, verifyTypedData, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { LocalEvmChain } from '../../server/src/chains/local.js';
import type { LocalSolanaChain } from '@paygate/devchain';
import { deadRpcUrl, sharedChains, useChainSnapshots } from '../helpers/chain.js';
import { fundedWallet, localSolanaRpc, type SolanaRpc } from '../helpers/solana.js';
import { eventually, receiptOf, solanaTransactionOf } from '../helpers/wait.js';
import { launchChromium } from '../collect/browser.js';
import { installEvmWallet, installSolanaWallet, type EvmWalletOptions } from './wallets.js';

/** The dapp: it listens before or after the wallets, depending on whether a test also runs it as an init script. */
const APP_SCRIPT = `(function () {
  if (window.testApp) return;
  var app = { registered: [], registerCalls: 0, announced: [], events: [] };
  var api = Object.freeze({
    register: function () {
      var wallets = Array.prototype.slice.call(arguments);
      app.registerCalls += wallets.length;
      wallets.forEach(function (w) { if (app.registered.indexOf(w) < 0) app.registered.push(w); });
      return function () {};
    },
  });
  window.addEventListener('wallet-standard:register-wallet', function (event) { event.detail(api); });
  window.dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: api }));
  window.addEventListener('eip6963:announceProvider', function (event) { app.announced.push(event.detail); });
  window.testApp = app;
})();`;

/** The checkout's own policy is as strict: the wallets must work where the page may run no script but its own. */
const NONCE = 'dapp-script';
const CSP = `default-src 'none'; script-src 'nonce-${NONCE}'`;
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Dapp</title></head><body>
<script nonce="${NONCE}">${APP_SCRIPT}</script></body></html>`;

/** What the page's provider answered: a result, or the error it threw with its EIP-1193 fields. */
type Outcome = { result: unknown } | { error: { code: unknown; message: string; isError: boolean } };

const LOCAL_ID = 31337;
const MAINNET_ID = 1;

describe('checkout test wallets [browser]', function () {
  let browser: Browser;
  let server: Server;
  let pageUrl: string;
  let local: LocalEvmChain;
  let solana: LocalSolanaChain;
  let rpc: SolanaRpc;
  let context: BrowserContext;
  let problems: string[];

  before(async () => {
    const chains = await sharedChains();
    local = chains.local!.evm;
    solana = chains.local!.solana;
    rpc = await localSolanaRpc();
    server = createServer((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Security-Policy': CSP }).end(PAGE),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });
  beforeEach(async () => {
    context = await browser.newContext();
    problems = [];
    context.on('weberror', (e) => problems.push(e.error().message));
    context.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
  });
  afterEach(async () => {
    await context.close();
    assert.deepEqual(problems, []);
  });

  async function openPage(): Promise<Page> {
    const page = await context.newPage();
    await page.goto(pageUrl);
    return page;
  }

  describe('EVM (EIP-6963, EIP-1193)', () => {
    useChainSnapshots();

    const buyerWallet = async (options: Partial<EvmWalletOptions> = {}) =>
      installEvmWallet(context, {
        account: privateKeyToAccount(generatePrivateKey()),
        rpcUrls: { [LOCAL_ID]: local.config.rpcUrl, [MAINNET_ID]: await deadRpcUrl() },
        chainId: LOCAL_ID,
        ...options,
      });

    /** Asks the provider the page discovered (the last announced one, or window.ethereum). */
    const request = (page: Page, method: string, params?: unknown) =>
      page.evaluate(
        async ([m, p]) => {
          const app = (window as unknown as { testApp: { announced: { provider: EIP1193 }[] } }).testApp;
          const provider = app.announced.at(-1)?.provider ?? (window as unknown as { ethereum: EIP1193 }).ethereum;
          try {
            return { result: await provider.request({ method: m as string, params: p }) };
          } catch (e) {
            const error = e as { code?: unknown; message: string };
            return { error: { code: error.code, message: error.message, isError: e instanceof Error } };
          }
        },
        [method, params] as const,
      ) as Promise<Outcome>;
    type EIP1193 = { request(args: { method: string; params?: unknown }): Promise<unknown> };

    const resultOf = async (outcome: Promise<Outcome>) => {
      const answered = await outcome;
      assert.ok('result' in answered, `the provider refused: ${JSON.stringify(answered)}`);
      return answered.result;
    };

    it('eip6963.discover: announces a frozen detail again on each request, then connects and emits accountsChanged', async () => {
      const wallet = await buyerWallet({ name: 'Checkout Test Wallet', rdns: 'org.paygate.checkout-test' });
      const page = await openPage();
      // The wallet announced before the page listened: only a request makes it announce again.
      assert.equal(
        await page.evaluate(() => (window as unknown as { testApp: { announced: [] } }).testApp.announced.length),
        0,
      );
      const discovered = await page.evaluate(() => {
        const app = (window as unknown as { testApp: { announced: { info: unknown; provider: unknown }[] } }).testApp;
        window.dispatchEvent(new Event('eip6963:requestProvider'));
        window.dispatchEvent(new Event('eip6963:requestProvider'));
        const [first, second] = app.announced;
        return {
          count: app.announced.length,
          info: first!.info,
          frozen: Object.isFrozen(first) && Object.isFrozen(first!.info),
          sameProvider: first!.provider === second!.provider,
          hasWindowEthereum: 'ethereum' in window,
        };
      });
      assert.equal(discovered.count, 2);
      assert.deepEqual(discovered.info, wallet.info);
      assert.match(wallet.info.uuid, /^[0-9a-f-]{36}$/);
      assert.match(wallet.info.icon, /^data:image\/svg\+xml;base64,/);
      assert.equal(discovered.frozen, true);
      assert.equal(discovered.sameProvider, true);
      assert.equal(discovered.hasWindowEthereum, false);

      await page.evaluate(() => {
        const app = (
          window as unknown as {
            testApp: { announced: { provider: { on(e: string, f: (a: unknown) => void): void } }[]; events: unknown[] };
          }
        ).testApp;
        app.announced[0]!.provider.on('accountsChanged', (accounts) => app.events.push(['accountsChanged', accounts]));
      });
      assert.deepEqual(await resultOf(request(page, 'eth_accounts')), []);
      assert.deepEqual(await resultOf(request(page, 'eth_requestAccounts')), [wallet.address]);
      assert.deepEqual(await resultOf(request(page, 'eth_accounts')), [wallet.address]);
      assert.equal(await resultOf(request(page, 'eth_chainId')), '0x7a69');
      assert.equal(await resultOf(request(page, 'net_version')), '31337');
      assert.deepEqual(
        await page.evaluate(() => (window as unknown as { testApp: { events: unknown[] } }).testApp.events),
        [['accountsChanged', [wallet.address]]],
      );
      assert.deepEqual(wallet.calls, [
        'eth_accounts',
        'eth_requestAccounts',
        'eth_accounts',
        'eth_chainId',
        'net_version',
      ]);
    });

    it('eth_signTypedData_v4: answers a signature by the buyer that viem verifies, and refuses another chain in the domain', async () => {
      const wallet = await buyerWallet();
      const page = await openPage();
      await page.evaluate(() => window.dispatchEvent(new Event('eip6963:requestProvider')));
      await resultOf(request(page, 'eth_requestAccounts'));
      const typed = {
        domain: { name: 'Test USD', version: '1', chainId: LOCAL_ID, verifyingContract: local.testUsd },
        types: {
          TransferWithAuthorization: [
            { name: 'from', type: 'address' },
            { name: 'to', type: 'address' },
            { name: 'value', type: 'uint256' },
            { name: 'validAfter', type: 'uint256' },
            { name: 'validBefore', type: 'uint256' },
            { name: 'nonce', type: 'bytes32' },
          ],
        },
        primaryType: 'TransferWithAuthorization' as const,
        message: {
          from: wallet.address,
          to: privateKeyToAccount(generatePrivateKey()).address,
          value: '1500000',
          validAfter: '0',
          validBefore: '4102444800',
          nonce: `0x${'ab'.repeat(32)}` as Hex,
        },
      };
      const json = JSON.stringify({
        ...typed,
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'version', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
          ...typed.types,
        },
      });
      const signature = (await resultOf(request(page, 'eth_signTypedData_v4', [wallet.address, json]))) as Hex;
      assert.match(signature, /^0x[0-9a-f]{130}$/);
      assert.equal(
        await verifyTypedData({
          ...typed,
          message: { ...typed.message, value: 1_500_000n, validAfter: 0n, validBefore: 4_102_444_800n },
          address: wallet.address,
          signature,
        }),
        true,
      );

      const otherChain = JSON.stringify({ ...JSON.parse(json), domain: { ...typed.domain, chainId: 1 } });
      const refused = await request(page, 'eth_signTypedData_v4', [wallet.address, otherChain]);
      assert.ok('error' in refused);
      assert.equal(refused.error.code, -32602);
      const stranger = privateKeyToAccount(generatePrivateKey()).address;
      const notHeld = await request(page, 'eth_signTypedData_v4', [stranger, json]);
      assert.ok('error' in notHeld);
      assert.equal(notHeld.error.code, 4100);
    });

    it('wallet_switchEthereumChain: answers 4902 for a chain not added yet; wallet_addEthereumChain adds it and switches', async () => {
      const wallet = await buyerWallet({ chainId: MAINNET_ID });
      const page = await openPage();
      await page.evaluate(() => {
        const app = (
          window as unknown as {
            testApp: { announced: { provider: { on(e: string, f: (a: unknown) => void): void } }[]; events: unknown[] };
          }
        ).testApp;
        window.dispatchEvent(new Event('eip6963:requestProvider'));
        app.announced[0]!.provider.on('chainChanged', (chainId) => app.events.push(['chainChanged', chainId]));
      });
      assert.equal(await resultOf(request(page, 'eth_chainId')), '0x1');

      const unknown = await request(page, 'wallet_switchEthereumChain', [{ chainId: '0x7a69' }]);
      assert.ok('error' in unknown);
      assert.equal(unknown.error.code, 4902);
      assert.equal(unknown.error.isError, true);
      assert.equal(wallet.chainId, MAINNET_ID);

      const unreachable = await request(page, 'wallet_addEthereumChain', [{ chainId: '0x2105', chainName: 'Base' }]);
      assert.ok('error' in unreachable);
      assert.equal(unreachable.error.code, -32602);

      const addition = {
        chainId: '0x7a69',
        chainName: 'Local chain (anvil)',
        rpcUrls: [local.config.rpcUrl],
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      };
      assert.equal(await resultOf(request(page, 'wallet_addEthereumChain', [addition])), null);
      assert.equal(await resultOf(request(page, 'wallet_switchEthereumChain', [{ chainId: '0x7a69' }])), null);
      assert.equal(await resultOf(request(page, 'eth_chainId')), '0x7a69');
      assert.equal(wallet.chainId, LOCAL_ID);
      assert.deepEqual(
        await page.evaluate(() => (window as unknown as { testApp: { events: unknown[] } }).testApp.events),
        [['chainChanged', '0x7a69']],
      );
      // Reads now go to anvil.
      const block = BigInt((await resultOf(request(page, 'eth_blockNumber'))) as string);
      assert.ok(block <= (await local.clients.public.getBlockNumber()));
      assert.deepEqual(
        wallet.calls.filter((m) => m.startsWith('wallet_')),
        [
          'wallet_switchEthereumChain',
          'wallet_addEthereumChain',
          'wallet_addEthereumChain',
          'wallet_switchEthereumChain',
        ],
      );
    });

    it('rejectNext: the next signing request is refused with 4001 as an Error, and the one after is signed', async () => {
      const wallet = await buyerWallet({ connected: true });
      const page = await openPage();
      await page.evaluate(() => window.dispatchEvent(new Event('eip6963:requestProvider')));
      wallet.rejectNext();
      const message = '0x' + Buffer.from('Pay 1.50 TUSD').toString('hex');
      const refused = await request(page, 'personal_sign', [message, wallet.address]);
      assert.deepEqual(refused, { error: { code: 4001, message: 'User rejected the request.', isError: true } });
      const signature = (await resultOf(request(page, 'personal_sign', [message, wallet.address]))) as Hex;
      assert.equal(await wallet.account.signMessage({ message: { raw: message as Hex } }), signature);

      wallet.rejectNext('eth_requestAccounts');
      const notConnected = await request(page, 'eth_requestAccounts');
      assert.ok('error' in notConnected);
      assert.equal(notConnected.error.code, 4001);
      assert.deepEqual(wallet.calls, ['personal_sign', 'personal_sign', 'eth_requestAccounts']);
    });

    it('holdNext: a signing request stays pending until the test approves it for the user', async () => {
      const wallet = await buyerWallet({ connected: true });
      const page = await openPage();
      const message = `0x${Buffer.from('Pay 1.50 TUSD').toString('hex')}`;
      const held = wallet.holdNext();
      await page.evaluate(
        ([m, address]) => {
          const w = window as unknown as {
            testApp: { announced: { provider: { request(a: unknown): Promise<unknown> } }[] };
            answered: unknown;
            signing: Promise<unknown>;
          };
          window.dispatchEvent(new Event('eip6963:requestProvider'));
          w.answered = null;
          w.signing = w.testApp.announced[0]!.provider.request({ method: 'personal_sign', params: [m, address] });
          void w.signing.then((signature) => (w.answered = signature));
        },
        [message, wallet.address] as const,
      );
      assert.equal(await held.asked, 'personal_sign');
      assert.equal(await page.evaluate(() => (window as unknown as { answered: unknown }).answered), null);
      held.approve();
      const signature = await page.evaluate(() => (window as unknown as { signing: Promise<unknown> }).signing);
      assert.equal(signature, await wallet.account.signMessage({ message: { raw: message as Hex } }));
    });

    it('eth_sendTransaction: signs and sends on the current chain and answers the hash of a mined transfer', async () => {
      const wallet = await buyerWallet({ connected: true });
      await local.test.setBalance({ address: wallet.address, value: parseEther('1') });
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      const page = await openPage();
      await page.evaluate(() => window.dispatchEvent(new Event('eip6963:requestProvider')));
      const hash = (await resultOf(
        request(page, 'eth_sendTransaction', [{ from: wallet.address, to: recipient, value: '0x2386f26fc10000' }]),
      )) as Hex;
      const receipt = await receiptOf(local.clients.public, hash);
      assert.equal(receipt.status, 'success');
      assert.equal(getAddress(receipt.from), wallet.address);
      assert.equal(await resultOf(request(page, 'eth_getBalance', [recipient, 'latest'])), '0x2386f26fc10000');
      const unsupported = await request(page, 'anvil_setBalance', [recipient, '0x1']);
      assert.ok('error' in unsupported);
      assert.equal(unsupported.error.code, 4200);
    });

    it('window.ethereum: the fallback provider hears chainChanged when the user switches and disconnect as an error', async () => {
      const wallet = await buyerWallet({ chainId: MAINNET_ID, announce: false, injectWindowEthereum: true });
      const page = await openPage();
      await page.evaluate(() => {
        const app = (window as unknown as { testApp: { events: unknown[] } }).testApp;
        const provider = (window as unknown as { ethereum: { on(e: string, f: (a: unknown) => void): void } }).ethereum;
        window.dispatchEvent(new Event('eip6963:requestProvider'));
        provider.on('chainChanged', (chainId) => app.events.push(['chainChanged', chainId]));
        provider.on('disconnect', (error) =>
          app.events.push(['disconnect', (error as { code: number }).code, error instanceof Error]),
        );
      });
      await wallet.setChain(LOCAL_ID);
      await wallet.emit('disconnect', { code: 4900, message: 'The provider is disconnected from all chains.' });
      const seen = await page.evaluate(() => {
        const app = (window as unknown as { testApp: { events: unknown[]; announced: unknown[] } }).testApp;
        return { events: app.events, announced: app.announced.length };
      });
      assert.deepEqual(seen, {
        events: [
          ['chainChanged', '0x7a69'],
          ['disconnect', 4900, true],
        ],
        announced: 0,
      });
      assert.equal(await resultOf(request(page, 'eth_chainId')), '0x7a69');
    });
  });

  describe('Solana (Wallet Standard)', () => {
    type StandardWallet = {
      name: string;
      version: string;
      icon: string;
      chains: string[];
      accounts: { address: string; publicKey: Uint8Array; chains: string[]; features: string[] }[];
      features: Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>>;
    };

    const buyerWallet = (signer: KeyPairSigner) =>
      installSolanaWallet(context, {
        signer,
        rpcUrl: solana.rpcUrl,
        chain: solana.caip2,
      });

    type SignOutcome = { result: string } | { error: { message: string; isError: boolean } };

    /** What the page's app registered: names, and how often `register` was called. */
    const registrations = (page: Page) =>
      page.evaluate(() => {
        const app = (window as unknown as { testApp: { registered: StandardWallet[]; registerCalls: number } }).testApp;
        return { names: app.registered.map((w) => w.name), calls: app.registerCalls };
      });

    /** Connects the page's wallet and has it sign (and send, when asked) the base64 wire transaction. */
    const signInPage = (
      page: Page,
      wire: string,
      feature: 'signTransaction' | 'signAndSendTransaction',
      chain?: string,
    ) =>
      page.evaluate(
        async ([transaction, method, chainId]) => {
          const wallet = (window as unknown as { testApp: { registered: StandardWallet[] } }).testApp.registered[0]!;
          const { accounts } = (await wallet.features['standard:connect']!.connect!()) as {
            accounts: StandardWallet['accounts'];
          };
          const bytes = Uint8Array.from(atob(transaction as string), (c) => c.charCodeAt(0));
          try {
            const [output] = (await wallet.features[`solana:${method}`]![method as string]!({
              account: accounts[0],
              transaction: bytes,
              ...(chainId === undefined ? {} : { chain: chainId }),
            })) as { signedTransaction?: Uint8Array; signature?: Uint8Array }[];
            const out = output!.signedTransaction ?? output!.signature!;
            return { result: btoa(Array.from(out, (b) => String.fromCharCode(b)).join('')) };
          } catch (e) {
            return { error: { message: (e as Error).message, isError: e instanceof Error } };
          }
        },
        [wire, feature, chain] as const,
      ) as Promise<SignOutcome>;

    /** A transfer of the buyer's SOL, its fee paid by `feePayer` (who has signed already) or by the buyer. */
    async function transfer(
      buyer: SolanaAddress,
      destination: SolanaAddress,
      lamports: bigint,
      feePayer?: TransactionSigner,
    ): Promise<Transaction> {
      const { value: lifetime } = await rpc.getLatestBlockhash().send();
      const base = pipe(createTransactionMessage({ version: 0 }), (m) =>
        setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      );
      const instruction = getTransferSolInstruction({ source: createNoopSigner(buyer), destination, amount: lamports });
      if (!feePayer) {
        return compileTransaction(
          appendTransactionMessageInstruction(instruction, setTransactionMessageFeePayer(buyer, base)),
        );
      }
      return partiallySignTransactionMessageWithSigners(
        appendTransactionMessageInstruction(instruction, setTransactionMessageFeePayerSigner(feePayer, base)),
      );
    }

    const wireOf = (transaction: Transaction) =>
      Buffer.from(getTransactionEncoder().encode(transaction)).toString('base64');

    it('register: a wallet installed before the app listens registers once, on app-ready', async () => {
      const buyer = await generateKeyPairSigner();
      const wallet = await buyerWallet(buyer);
      const page = await openPage();
      assert.deepEqual(await registrations(page), { names: [wallet.name], calls: 1 });
      const shape = await page.evaluate(() => {
        const w = (window as unknown as { testApp: { registered: StandardWallet[] } }).testApp.registered[0]!;
        return {
          version: w.version,
          icon: w.icon.slice(0, 26),
          chains: [...w.chains],
          accounts: w.accounts.length,
          features: Object.keys(w.features).sort(),
          versions: Object.values(w.features).map((f) => f.version),
        };
      });
      assert.deepEqual(shape, {
        version: '1.0.0',
        icon: 'data:image/svg+xml;base64,',
        chains: [solana.caip2, 'solana:localnet'],
        accounts: 0,
        features: [
          'solana:signAndSendTransaction',
          'solana:signTransaction',
          'standard:connect',
          'standard:disconnect',
          'standard:events',
        ],
        versions: ['1.0.0', '1.0.0', '1.0.0', '1.0.0', '1.0.0'],
      });
    });

    it('register: a wallet installed after the app listens registers once, on register-wallet', async () => {
      await context.addInitScript({ content: APP_SCRIPT });
      const wallet = await buyerWallet(await generateKeyPairSigner());
      const page = await openPage();
      assert.deepEqual(await registrations(page), { names: [wallet.name], calls: 1 });
    });

    it('solana:signTransaction: connects, emits change, and fills only the buyer slot with a signature that verifies', async () => {
      const [buyer, feePayer, destination] = await Promise.all([
        generateKeyPairSigner(),
        generateKeyPairSigner(),
        generateKeyPairSigner(),
      ]);
      const wallet = await buyerWallet(buyer);
      const page = await openPage();
      const connected = await page.evaluate(async () => {
        const w = (window as unknown as { testApp: { registered: StandardWallet[] } }).testApp.registered[0]!;
        const changes: string[][] = [];
        const silent = (await w.features['standard:connect']!.connect!({ silent: true })) as {
          accounts: unknown[];
        };
        const off = w.features['standard:events']!.on!('change', ((properties: { accounts: { address: string }[] }) =>
          changes.push(properties.accounts.map((a) => a.address))) as never) as unknown as () => void;
        const { accounts } = (await w.features['standard:connect']!.connect!()) as {
          accounts: StandardWallet['accounts'];
        };
        off();
        return {
          silent: silent.accounts.length,
          changes,
          account: {
            address: accounts[0]!.address,
            publicKey: Array.from(accounts[0]!.publicKey),
            isBytes: accounts[0]!.publicKey instanceof Uint8Array,
            chains: accounts[0]!.chains,
            features: accounts[0]!.features,
          },
          walletAccounts: w.accounts.length,
        };
      });
      assert.equal(connected.silent, 0);
      assert.deepEqual(connected.changes, [[buyer.address]]);
      assert.equal(connected.account.address, buyer.address);
      assert.equal(connected.account.isBytes, true);
      const raw = new Uint8Array(await crypto.subtle.exportKey('raw', buyer.keyPair.publicKey));
      assert.deepEqual(connected.account.publicKey, Array.from(raw));
      assert.deepEqual(connected.account.chains, [solana.caip2, 'solana:localnet']);
      assert.deepEqual(connected.account.features, ['solana:signTransaction', 'solana:signAndSendTransaction']);
      assert.equal(connected.walletAccounts, 1);

      const unsigned = await transfer(buyer.address, destination.address, 10_000_000n, feePayer);
      assert.equal(unsigned.signatures[buyer.address], null);
      const answer = await signInPage(page, wireOf(unsigned), 'signTransaction');
      assert.ok('result' in answer, JSON.stringify(answer));
      const signed = getTransactionDecoder().decode(Buffer.from(answer.result, 'base64'));
      // Arrays: the decoded bytes are Buffer views, which deepEqual tells apart from the Uint8Arrays kit made.
      assert.deepEqual(Array.from(signed.messageBytes), Array.from(unsigned.messageBytes));
      assert.deepEqual(
        Array.from(signed.signatures[feePayer.address]!),
        Array.from(unsigned.signatures[feePayer.address]!),
      );
      const signature = signed.signatures[buyer.address] as SignatureBytes;
      assert.ok(signature);
      assert.equal(
        await verifySignature(await getPublicKeyFromAddress(buyer.address), signature, signed.messageBytes),
        true,
      );
      assert.deepEqual(wallet.calls, [
        'standard:connect',
        'standard:connect',
        'standard:connect',
        'solana:signTransaction',
      ]);
    });

    it('solana:signAndSendTransaction: the transfer lands on the local chain under the signature it answers', async () => {
      const buyer = await fundedWallet({ lamports: 1_000_000_000n });
      const destination = (await generateKeyPairSigner()).address;
      await buyerWallet(buyer);
      const page = await openPage();
      const answer = await signInPage(
        page,
        wireOf(await transfer(buyer.address, destination, 10_000_000n)),
        'signAndSendTransaction',
        solana.caip2,
      );
      assert.ok('result' in answer, JSON.stringify(answer));
      const signature = getBase58Decoder().decode(Buffer.from(answer.result, 'base64'));
      const landed = await solanaTransactionOf(rpc, signature);
      assert.equal(landed.meta?.err, null);
      assert.equal(landed.transaction.signatures[0], signature);
      await eventually('the transfer in the destination balance', async () => {
        const { value } = await rpc.getBalance(destination).send();
        return value === 10_000_000n;
      });
    });

    it('rejectNext: the next sign rejects with "User rejected the request.", a chain the wallet lacks is refused, the next sign is made', async () => {
      const [buyer, destination] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
      const wallet = await buyerWallet(buyer);
      const page = await openPage();
      wallet.rejectNext();
      const wire = wireOf(await transfer(buyer.address, destination.address, 1_000n));
      const refused = await signInPage(page, wire, 'signTransaction');
      assert.deepEqual(refused, { error: { message: 'User rejected the request.', isError: true } });
      const unknownChain = await signInPage(page, wire, 'signTransaction', 'solana:mainnet');
      assert.ok('error' in unknownChain);
      assert.match(unknownChain.error.message, /does not support the chain solana:mainnet/);
      const answer = await signInPage(page, wire, 'signTransaction');
      assert.ok('result' in answer);
      assert.deepEqual(wallet.calls, [
        'standard:connect',
        'solana:signTransaction',
        'standard:connect',
        'solana:signTransaction',
        'standard:connect',
        'solana:signTransaction',
      ]);
      await wallet.disconnect();
      assert.equal(
        await page.evaluate(
          () =>
            (window as unknown as { testApp: { registered: StandardWallet[] } }).testApp.registered[0]!.accounts.length,
        ),
        0,
      );
    });
  });
});
