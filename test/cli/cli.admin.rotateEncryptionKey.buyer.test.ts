/**
 * `paygate admin rotate-encryption-key` and `verify-secrets` cover what was sold (docs/decisions.md §30.3): a payment's
 * sealed buyer and the sealed events of a payment with a buyer are re-sealed under the new key and open with it alone.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../server/src/crypto/secretBox.js';
import { listEventsForPayment } from '../../server/src/db/queries/events.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { checkDetails } from '../../server/src/payments/details.js';
import { openEventPayload } from '../../server/src/payments/eventPayload.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { toSnapshot } from '../../server/src/payments/snapshot.js';
import { parseJson, runCliInProcess } from '../helpers/cli.js';
import { describeEachDatabase } from '../helpers/db.js';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { testRuntime } from '../helpers/runtime.js';

const key = (id: string) => ({ id, key: randomBytes(32) });
const envKey = (k: { id: string; key: Buffer }) => `${k.id}:${k.key.toString('base64')}`;

interface Rotation {
  changed: Record<string, number> | null;
  remaining: Record<string, number>;
}

describeEachDatabase('cli.admin rotate-encryption-key (buyers)', (database) => {
  it('rotate-encryption-key: re-seals payment buyers and sealed event payloads; the new key alone opens them', async () => {
    const t = database();
    const k1 = key('k1');
    const k2 = key('k2');
    const runtime = await testRuntime({
      db: t.db,
      clock: { now: () => Date.now(), set: () => undefined, advance: () => undefined },
      config: { DATABASE_URL: t.url, PAYGATE_ENCRYPTION_KEY: envKey(k1) },
    });
    const { merchantId } = await createMerchantAccount(runtime);
    const buyer = { email: 'rotated.buyer@example.com', name: 'Rotated Buyer' };
    const payment = await createPayment(runtime, {
      merchantId,
      live: false,
      referenceId: 'keyrot-buyer',
      amount: { unit: 'iso4217/USD', value: '1250' },
      expiresAt: Date.now() + 86_400_000,
      successUrl: null,
      errorUrl: null,
      details: checkDetails({ buyer, description: 'A rotated sale' }, '1250'),
    });
    await runtime.close();

    const both = { DATABASE_URL: t.url, PAYGATE_ENCRYPTION_KEY: `${envKey(k2)},${envKey(k1)}` };
    const check = await runCliInProcess(['admin', 'rotate-encryption-key', '--check', '--json'], both);
    assert.equal(check.code, 1, 'rows remain under k1');
    const pending = (JSON.parse(check.stdout) as Rotation).remaining;
    assert.equal(pending.payments, 1);
    assert.equal(pending.events, 1);
    const rotated = parseJson<Rotation>(
      await runCliInProcess(['admin', 'rotate-encryption-key', '--batch', '1', '--json'], both),
    );
    assert.equal(rotated.changed!.payments, 1);
    assert.equal(rotated.changed!.events, 1);
    assert.ok(
      Object.values(rotated.remaining).every((n) => n === 0),
      JSON.stringify(rotated.remaining),
    );

    const onlyK2 = new SecretBox([k2]);
    const row = (await findPayment(t.db.knex, payment.id))!;
    assert.equal(SecretBox.keyIdOf(row.buyer_sealed!), 'k2');
    assert.deepEqual(toSnapshot(row, onlyK2).buyer, buyer);
    const [event] = await listEventsForPayment(t.db.knex, payment.id);
    const raw = (await t.db.knex('events').where({ id: event!.id }).first()) as {
      payload: string;
      payload_sealed: string;
    };
    const envelope = JSON.parse(openEventPayload(onlyK2, event!.id, raw)) as { data: { buyer: unknown } };
    assert.deepEqual(envelope.data.buyer, buyer);

    const verified = await runCliInProcess(['admin', 'verify-secrets', '--json'], {
      DATABASE_URL: t.url,
      PAYGATE_ENCRYPTION_KEY: envKey(k2),
    });
    assert.equal(verified.code, 0, verified.stderr);
    const opened = (JSON.parse(verified.stdout) as { opened: Record<string, number> }).opened;
    assert.equal(opened.payments, 1);
    assert.equal(opened.events, 1);
  });
});
