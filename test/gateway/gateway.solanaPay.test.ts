/**
 * Solana Pay transaction requests (docs/decisions.md §19), driven by the real `@solana/pay` client and web3.js v1
 * against the local chain: GET label and icon, POST the account, the wallet signs and sends, and the watcher finds
 * the transaction by its reference and takes the payment to `succeeded` through the jobs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeURL, fetchTransaction, parseURL, type TransactionRequestURL } from '@solana/pay';
import { Connection, Keypair, PublicKey, Transaction } from '@solana/web3.js';
import {
  createKeyPairSignerFromBytes,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  partiallySignTransaction,
  type Address,
  type Blockhash,
} from '@solana/kit';
import { paymentTransaction } from '../../server/src/chains/solana/transfer.js';
import { verifyOption } from '../../server/src/checkout/optionToken.js';
import { SOLANA_PAY_SEARCH_TASK, solanaPayLink } from '../../server/src/checkout/solanaPay.js';
import { removeMerchantLogo, setMerchantLogo } from '../../server/src/accounts/logo.js';
import { jpegLogo, pngLogo } from '../dashboard/logoFiles.js';
import { solanaTransactionOf } from '../helpers/wait.js';
import { startCheckoutHarness, type CheckoutHarness, type StatusAnswer } from './checkout.js';
import { expectError, expectJson } from './harness.js';

const PUBLIC = 'https://pay.example';

describe('gateway Solana Pay: transaction requests on the local chain', () => {
  let h: CheckoutHarness;
  let connection: Connection;
  before(async () => {
    h = await startCheckoutHarness({ config: { PUBLIC_BASE_URL: PUBLIC } });
    connection = new Connection(h.solana.rpcUrl, 'confirmed');
  });
  after(() => h.close());

  /** A wallet's key, as web3.js holds it, funded with TUSD (and SOL only when asked: our fee payer pays). */
  async function wallet(tusd = 100_000_000n, lamports = 0n): Promise<Keypair> {
    const keypair = Keypair.generate();
    const address = keypair.publicKey.toBase58() as Address;
    if (tusd > 0n) await h.solana.faucet.mintTokens(address, h.solana.mints.tusd.address, tusd);
    if (lamports > 0n) await h.solana.faucet.airdropSol(address, lamports);
    return keypair;
  }

  /**
   * The link the wallet reaches: the deployment is behind TLS at its public URL (Solana Pay requires https), this
   * test's server listens on plain HTTP, so the public origin is swapped for the listener's, as a proxy would.
   */
  const local = (link: URL) => new URL(`${link.pathname}${link.search}`, h.server.url);
  const open = (method: string, paymentId: string, body?: unknown, query = '') =>
    h.call(method, `/v1/gateway/payment/${paymentId}/solana-pay${query}`, { body, headers: { 'Api-Key': null } });
  const status = async (id: string) =>
    (await expectJson<StatusAnswer>(await h.call('GET', `/v1/gateway/payment/${id}/status`), 200)).status;
  const events = async (paymentId: string) =>
    (await h.runtime.db.knex('events').where({ payment_id: paymentId }).orderBy('state_version')).map(
      (e: { type: string }) => e.type,
    );

  /** Scans, fetches, signs and sends as a wallet does; answers the transaction's signature. */
  async function walletPays(paymentId: string, buyer: Keypair): Promise<string> {
    const url = encodeURL({ link: new URL(solanaPayLink(PUBLIC, paymentId)), label: 'Northwind' });
    const parsed = parseURL(url) as TransactionRequestURL;
    assert.equal(parsed.link.href, solanaPayLink(PUBLIC, paymentId));
    const tx = await fetchTransaction(connection, buyer.publicKey, local(parsed.link));
    tx.partialSign(buyer);
    return connection.sendRawTransaction(tx.serialize());
  }

  it('GET answers the label and the default icon, without credentials, to any origin; the icon loads', async () => {
    const paymentId = await h.createPayment();
    const res = await h.call('GET', `/v1/gateway/payment/${paymentId}/solana-pay`, {
      headers: { 'Api-Key': null, Origin: 'https://wallet.example' },
    });
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    const label = await expectJson<{ label: string; icon: string }>(res, 200);
    assert.equal(label.icon, `${PUBLIC}/v1/gateway/solana-pay/icon.svg`);
    assert.ok(label.label.length > 0);
    const icon = await h.call('GET', '/v1/gateway/solana-pay/icon.svg', { headers: { 'Api-Key': null } });
    assert.equal(icon.status, 200);
    assert.match(icon.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    assert.equal(icon.headers.get('cross-origin-resource-policy'), 'cross-origin');
    assert.match(await icon.text(), /^<svg /);
  });

  it('GET names the merchant’s uploaded logo by its absolute URL when it is a PNG, the default for a JPEG', async () => {
    const label = async () => {
      const paymentId = await h.createPayment();
      const res = await h.call('GET', `/v1/gateway/payment/${paymentId}/solana-pay`, { headers: { 'Api-Key': null } });
      return (await expectJson<{ icon: string }>(res, 200)).icon;
    };
    try {
      const png = await setMerchantLogo(h.runtime, h.account.merchantId, pngLogo().toString('base64'));
      assert.equal(await label(), `${PUBLIC}${png.iconUrl}`);
      // Solana Pay accepts SVG, PNG and WebP icons only.
      await setMerchantLogo(h.runtime, h.account.merchantId, jpegLogo().toString('base64'));
      assert.equal(await label(), `${PUBLIC}/v1/gateway/solana-pay/icon.svg`);
    } finally {
      await removeMerchantLogo(h.runtime, h.account.merchantId);
    }
  });

  it('the @solana/pay client pays: fetchTransaction, the wallet signs and sends, the payment ends succeeded', async () => {
    const paymentId = await h.createPayment();
    const buyer = await wallet();
    const post = await expectJson<{ transaction: string; message: string }>(
      await open('POST', paymentId, { account: buyer.publicKey.toBase58(), futureField: 1 }),
      200,
    );
    assert.match(post.message, /^Pay 12\.50 USD to .+ \(12\.5 TUSD\)$/);
    // Partially signed by the service's fee payer, which is the first signer; the buyer's slot is empty.
    const offered = Transaction.from(Buffer.from(post.transaction, 'base64'));
    assert.equal(offered.feePayer!.toBase58(), h.chains.solana[0]!.feePayer.address);
    assert.equal(offered.signatures.length, 2);
    assert.ok(offered.signatures[0]!.signature);
    assert.equal(offered.signatures[1]!.signature, null);

    const signature = await walletPays(paymentId, buyer);
    const landed = await solanaTransactionOf(h.chains.solana[0]!.rpc, signature);
    const final = await h.settle(paymentId, 'succeeded');
    assert.equal(final.info?.txId, signature);
    assert.deepEqual(await events(paymentId), [
      'payment.created',
      'payment.processing',
      'payment.succeeded',
      'payment.settled',
    ]);
    const claim = (await h.runtime.db.knex('payment_claims').where({ payment_id: paymentId }).first()) as {
      tx_id: string;
      details: string;
    };
    assert.equal(claim.tx_id, signature);
    const details = JSON.parse(claim.details) as { via: string; landedSlot: string };
    assert.equal(details.via, 'solana_pay');
    // The slot the wallet's transaction landed in, kept for direct settlement's finality (decisions.md §27.30).
    assert.equal(details.landedSlot, String(landed.slot));

    // Paid: the next scan is told so, and the same transaction pays nothing more however often it is looked for.
    const paid = await expectError(
      await open('POST', paymentId, { account: buyer.publicKey.toBase58() }),
      409,
      'invalid_state',
    );
    assert.match(paid, /succeeded/);
    await expectError(await open('GET', paymentId), 409, 'invalid_state');
    await h.runtime.jobs.add(h.runtime.db.knex, SOLANA_PAY_SEARCH_TASK, { paymentId });
    await h.drain();
    assert.equal((await h.runtime.db.knex('payment_claims').where({ tx_id: signature })).length, 1);
    assert.equal((await events(paymentId)).length, 4);
    await assert.rejects(connection.sendRawTransaction(Buffer.from(await rawOf(signature), 'base64')));
  });

  async function rawOf(signature: string): Promise<string> {
    const landed = await solanaTransactionOf(h.chains.solana[0]!.rpc, signature, { encoding: 'base64' });
    return landed.transaction[0];
  }

  it('POST refusals: unknown and malformed ids, a bad account, an account without balance, a chain not served', async () => {
    const paymentId = await h.createPayment();
    const buyer = await wallet();
    const account = buyer.publicKey.toBase58();
    await expectError(await open('POST', 'pay_AAAAAAAAAAAAAAAAAAAAAAAA', { account }), 404, 'payment_not_found');
    await expectError(await open('POST', 'not-a-payment', { account }), 404, 'payment_not_found');
    await expectError(await open('GET', 'not-a-payment'), 404, 'payment_not_found');
    for (const bad of ['not base58 0OIl', 'abc', `${account}x`]) {
      const message = await expectError(await open('POST', paymentId, { account: bad }), 400, 'params_validation');
      assert.match(message, /account is not a base58 Solana public key/);
    }
    await expectError(await open('POST', paymentId, {}), 400, 'params_validation');
    const empty = Keypair.generate().publicKey.toBase58();
    const broke = await expectError(await open('POST', paymentId, { account: empty }), 400, 'params_validation');
    assert.match(broke, new RegExp(`Account ${empty} holds no accepted asset on ${h.solana.caip2} to pay 12\\.50 USD`));
    const other = await expectError(
      await open(
        'POST',
        paymentId,
        { account },
        `?chain=${encodeURIComponent('solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1')}`,
      ),
      400,
      'params_validation',
    );
    assert.match(other, /serves no Solana chain/);
    // The named chain, when it is the served one, is accepted.
    await expectJson(await open('POST', paymentId, { account }, `?chain=${h.solana.caip2}`), 200);
    assert.equal(await status(paymentId), 'requires_action');
  });

  it('an expired payment answers 410 payment_expired on GET and POST', async () => {
    const paymentId = await h.createPayment({ expiresInSeconds: 60 });
    h.clock.advance(61_000);
    await expectError(await open('GET', paymentId), 410, 'payment_expired');
    const buyer = await wallet();
    await expectError(await open('POST', paymentId, { account: buyer.publicKey.toBase58() }), 410, 'payment_expired');
  });

  it('a transaction the wallet altered pays nothing: refused by the chain with our signature, ignored without it', async () => {
    const paymentId = await h.createPayment();
    const buyer = await wallet(100_000_000n, 1_000_000_000n);
    const post = await expectJson<{ transaction: string }>(
      await open('POST', paymentId, { account: buyer.publicKey.toBase58() }),
      200,
    );
    // Changing the amount voids the fee payer's signature: the chain refuses it.
    const offered = Transaction.from(Buffer.from(post.transaction, 'base64'));
    const transfer = offered.instructions.at(-1)!;
    transfer.data = Buffer.from(transfer.data);
    transfer.data.writeBigUInt64LE(1n, 1);
    offered.partialSign(buyer);
    await assert.rejects(connection.sendRawTransaction(offered.serialize({ verifySignatures: false })));

    // The same transfer one minor unit short, with the buyer as its own fee payer, lands naming the reference.
    const request = (await h.runtime.db.knex('solana_pay_requests').where({ payment_id: paymentId }).first()) as {
      option_id: string;
    };
    const option = verifyOption(h.runtime.config.optionSecret!, request.option_id, paymentId)!;
    const signer = await createKeyPairSignerFromBytes(buyer.secretKey);
    const { value: lifetime } = await h.chains.solana[0]!.rpc.getLatestBlockhash().send();
    const altered = await paymentTransaction(
      { ...option, claims: { ...option.claims, amount: (BigInt(option.claims.amount) - 1n).toString() } },
      signer.address,
      { blockhash: lifetime.blockhash as Blockhash, lastValidBlockHeight: lifetime.lastValidBlockHeight },
      'legacy',
    );
    const signed = await partiallySignTransaction([signer.keyPair], altered);
    await h.chains.solana[0]!.rpc.sendTransaction(getBase64EncodedWireTransaction(signed), {
      encoding: 'base64',
    }).send();
    await solanaTransactionOf(h.chains.solana[0]!.rpc, getSignatureFromTransaction(signed));
    const found = await connection.getSignaturesForAddress(
      new PublicKey(offered.instructions.at(-1)!.keys.at(-1)!.pubkey),
    );
    assert.deepEqual(
      found.map((f) => f.signature),
      [getSignatureFromTransaction(signed)],
    );
    // The watcher's round after it landed: it reads the transaction and refuses it.
    await h.drain();
    assert.equal(await status(paymentId), 'requires_action');
    assert.equal((await h.runtime.db.knex('payment_claims').where({ payment_id: paymentId })).length, 0);
  });
});

describe('gateway Solana Pay: screening', () => {
  let h: CheckoutHarness;
  let screened: Keypair;
  before(async () => {
    screened = Keypair.generate();
    const file = join(mkdtempSync(join(tmpdir(), 'screening-')), 'list.txt');
    writeFileSync(file, `${screened.publicKey.toBase58()}\n`);
    h = await startCheckoutHarness({ config: { PUBLIC_BASE_URL: PUBLIC, PAYGATE_SCREENING_FILE: file } });
  });
  after(() => h.close());

  it('POST for a screened account answers 403 sanctioned_user and leaves the payment payable: the POST proves no ownership', async () => {
    const paymentId = await h.createPayment();
    await h.solana.faucet.mintTokens(
      screened.publicKey.toBase58() as Address,
      h.solana.mints.tusd.address,
      100_000_000n,
    );
    await expectError(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/solana-pay`, {
        body: { account: screened.publicKey.toBase58() },
        headers: { 'Api-Key': null },
      }),
      403,
      'sanctioned_user',
    );
    const status = await expectJson<StatusAnswer>(await h.call('GET', `/v1/gateway/payment/${paymentId}/status`), 200);
    assert.equal(status.status, 'requires_action');
    const requests = await h.runtime.db.knex('solana_pay_requests').where({ payment_id: paymentId });
    assert.equal(requests.length, 0, 'no transaction was built for the screened account');
  });
});
