/**
 * `paygate admin rotate-encryption-key` (docs/decisions.md §29.8): data sealed under k1, the key list then `k2,k1`,
 * the command re-seals; afterwards only `k2` is configured and everything still opens, sign-in by email still finds
 * the user, and a second run changes nothing.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Webhook } from '@paygate/webhook-verifier';
import { SecretBox } from '../../server/src/crypto/secretBox.js';
import { readCollectedData, saveCollectedData } from '../../server/src/collect/store.js';
import { findEndpoint } from '../../server/src/db/queries/webhooks.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { createUser, emailOf, findUserByEmail } from '../../server/src/users/userAccounts.js';
import { ServerKeys } from '../../server/src/users/serverKeys.js';
import type { UsersDeps } from '../../server/src/users/usersDeps.js';
import { signatureHeader } from '../../server/src/webhooks/delivery.js';
import { SignerCache } from '../../server/src/webhooks/deliveryParts.js';
import { createEndpoint, rotateSecret } from '../../server/src/webhooks/endpoints.js';
import type { WebhookDeps } from '../../server/src/webhooks/deliveryDeps.js';
import { findInvoice } from '../../server/src/db/queries/invoiceRows.js';
import { buyerOf, createInvoice } from '../../server/src/invoices/merchantInvoices.js';
import { parseJson, runCliInProcess } from '../helpers/cli.js';
import { testConfig } from '../helpers/config.js';
import { describeEachDatabase } from '../helpers/db.js';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { testRuntime } from '../helpers/runtime.js';

const key = (id: string) => ({ id, key: randomBytes(32) });
const envKey = (k: { id: string; key: Buffer }) => `${k.id}:${k.key.toString('base64')}`;

interface Rotation {
  activeKeyId: string;
  changed: Record<string, number> | null;
  remaining: Record<string, number>;
}

describeEachDatabase('cli.admin rotate-encryption-key', (database) => {
  it('rotate-encryption-key: re-seals every table under the first key, the old key can go, a second run changes nothing', async () => {
    const t = database();
    const k1 = key('k1');
    const k2 = key('k2');
    const runtime = await testRuntime({
      db: t.db,
      clock: { now: () => Date.now(), set: () => undefined, advance: () => undefined },
      config: { DATABASE_URL: t.url, PAYGATE_ENCRYPTION_KEY: envKey(k1) },
    });
    const { merchantId } = await createMerchantAccount(runtime);
    const user = await createUser(runtime, {
      email: 'Keyrot.Owner@shop.example.com',
      password: 'a long enough password 1',
    });
    const { endpoint } = await createEndpoint(runtime, merchantId, 'test', {
      url: 'http://127.0.0.1:9/paygate',
    });
    const { secret } = await rotateSecret(runtime, merchantId, 'test');
    const payment = await createPayment(runtime, {
      merchantId,
      live: false,
      referenceId: 'keyrot-1',
      amount: { unit: 'iso4217/USD', value: '1250' },
      expiresAt: Date.now() + 86_400_000,
      successUrl: null,
      errorUrl: null,
    });
    const paymentId = payment.id;
    const data = {
      fullName: 'Ada Keyrot',
      dob: '1990-01-02',
      porCountry: 'FR',
      porAddress: '1 rue de la Paix, Paris',
      tosConfirmed: true as const,
    };
    await saveCollectedData(runtime, paymentId, data);
    // A stored idempotent refund answer, in the shape settlement/refunds.ts keeps it: the claim link sealed by refund id.
    const claimUrl = 'https://pay.example.com/claim/secret-token';
    await t.db.knex('idempotency_keys').insert({
      merchant_id: merchantId,
      live: false,
      key: 'refund-keyrot-1',
      request_hash: 'f'.repeat(64),
      response_status: 201,
      response_body: JSON.stringify({
        refund: { refund_id: 'rf_keyrot1', claim_url: runtime.secretBox.seal(claimUrl, 'rf_keyrot1') },
      }),
      created_at: Date.now(),
    });

    // An invoice's buyer is sealed at rest too (docs/decisions.md §30.9).
    const invoice = await createInvoice(
      runtime,
      { merchantId, live: false },
      {
        currency: 'iso4217/USD',
        lineItems: [{ name: 'Keyrot', quantity: 1, unitAmount: '100' }],
        dueAt: Math.floor(Date.now() / 1000) + 3600,
        buyer: { name: 'Ada Keyrot', email: 'ada.keyrot@example.com' },
      },
    );

    const both = { DATABASE_URL: t.url, PAYGATE_ENCRYPTION_KEY: `${envKey(k2)},${envKey(k1)}` };
    const before = await runCliInProcess(['admin', 'rotate-encryption-key', '--check', '--json'], both);
    assert.equal(before.code, 1, 'rows remain under k1');
    const pending = (JSON.parse(before.stdout) as Rotation).remaining;
    assert.equal(pending.users, 1);
    assert.equal(pending.webhook_endpoints, 1);
    assert.equal(pending.collected_data, 1);
    assert.equal(pending.idempotency_keys, 1);
    assert.equal(pending.invoices, 1);

    // Batches of 1 row: the command loops over several transactions per table.
    const first = parseJson<Rotation>(
      await runCliInProcess(['admin', 'rotate-encryption-key', '--batch', '1', '--json'], both),
    );
    assert.equal(first.activeKeyId, 'k2');
    assert.equal(first.changed!.users, 1);
    assert.equal(first.changed!.webhook_endpoints, 1);
    assert.equal(first.changed!.collected_data, 1);
    assert.equal(first.changed!.idempotency_keys, 1);
    assert.equal(first.changed!.invoices, 1);
    assert.ok(
      Object.values(first.remaining).every((n) => n === 0),
      JSON.stringify(first.remaining),
    );

    const second = parseJson<Rotation>(await runCliInProcess(['admin', 'rotate-encryption-key', '--json'], both));
    assert.ok(
      Object.values(second.changed!).every((n) => n === 0),
      JSON.stringify(second.changed),
    );
    const check = await runCliInProcess(['admin', 'rotate-encryption-key', '--check'], both);
    assert.equal(check.code, 0);
    assert.match(check.stdout, /the other keys can be removed/);

    // Only k2 from now on.
    const onlyK2: UsersDeps = {
      db: t.db,
      now: () => Date.now(),
      secretBox: new SecretBox([k2]),
      config: { dashboard: testConfig().dashboard, encryptionKeys: [k2] },
      serverKeys: new ServerKeys([k2]),
    };
    const found = await findUserByEmail(onlyK2, 'keyrot.owner@shop.example.com');
    assert.equal(found?.id, user.id);
    assert.equal(emailOf(onlyK2, found), 'keyrot.owner@shop.example.com');
    const stored = (await findEndpoint(t.db.knex, endpoint.id))!;
    assert.equal(onlyK2.secretBox.open(stored.secret_sealed, endpoint.id), secret);
    assert.equal(SecretBox.keyIdOf(stored.previous_secret_sealed!), 'k2');
    assert.ok(onlyK2.secretBox.open(stored.previous_secret_sealed!, `${endpoint.id}:previous`).length > 0);
    // A delivery signed from the re-sealed row verifies with the secret the merchant holds.
    const body = JSON.stringify({ type: 'payment.completed', data: { payment_id: paymentId } });
    const timestamp = Math.floor(Date.now() / 1000);
    const signed = signatureHeader(
      {
        ...runtime,
        secretBox: onlyK2.secretBox,
        // A process started with only k2 opens the secrets with k2: its own signer cache.
        deliveryParts: { ...runtime.deliveryParts, signers: new SignerCache(onlyK2.secretBox) },
      } as WebhookDeps,
      stored,
      'evt_keyrot1',
      timestamp,
      body,
      Date.now(),
    );
    new Webhook(secret).verify(body, {
      'webhook-id': 'evt_keyrot1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signed,
    });
    assert.deepEqual(await readCollectedData(onlyK2, paymentId), data);
    const answer = (await t.db.knex('idempotency_keys').where({ key: 'refund-keyrot-1' }).first()) as {
      response_body: string;
    };
    const refund = (JSON.parse(answer.response_body) as { refund: { claim_url: string } }).refund;
    assert.equal(onlyK2.secretBox.open(refund.claim_url, 'rf_keyrot1'), claimUrl);
    const invoiceRow = (await findInvoice(t.db.knex, invoice.invoiceId))!;
    assert.deepEqual(buyerOf(onlyK2, invoiceRow), { name: 'Ada Keyrot', email: 'ada.keyrot@example.com' });

    // verify-secrets (§29.13): after the rotation k2 opens everything; k1 alone (a restore started with the old key)
    // opens nothing, and the answer names where, never what.
    interface Check {
      opened: Record<string, number>;
      failed: { table: string; column: string; row: string }[];
    }
    const verified = await runCliInProcess(['admin', 'verify-secrets', '--json'], {
      DATABASE_URL: t.url,
      PAYGATE_ENCRYPTION_KEY: envKey(k2),
    });
    assert.equal(verified.code, 0, verified.stderr);
    const opened = (JSON.parse(verified.stdout) as Check).opened;
    assert.equal(opened.users, 1);
    assert.equal(opened.webhook_endpoints, 2, 'the secret and the previous one');
    assert.equal(opened.collected_data, 1);
    assert.equal(opened.idempotency_keys, 1);
    assert.equal(opened.invoices, 1);
    const wrongKey = await runCliInProcess(['admin', 'verify-secrets'], {
      DATABASE_URL: t.url,
      PAYGATE_ENCRYPTION_KEY: envKey(k1),
    });
    assert.equal(wrongKey.code, 1);
    assert.match(wrongKey.stdout, /do not open with the configured keys/);
    assert.match(wrongKey.stdout, new RegExp(`webhook_endpoints\\.secret_sealed of ${endpoint.id}`));
    assert.ok(!wrongKey.stdout.includes(secret) && !wrongKey.stdout.includes('Ada Keyrot'), 'no value in the answer');
    await runtime.close();
  });
});
