/**
 * The deposit seed's fingerprint (settlement/seedGuard.ts, docs/decisions.md §22.15): the database keeps the EVM
 * collection address of the seed it was first started with; a start with another seed is refused with what happened
 * and what to do, and a deposit address is always answered as stored, never as newly derived by another seed.
 */
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createRuntime } from '@paygate/server';
import { createCheckout } from '../../server/src/checkout/context.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { depositAddressesFor } from '../../server/src/settlement/collected/deposits.js';
import { insertLedgerEntries } from '../../server/src/settlement/ledger.js';
import { newMnemonic, seedOf } from '../../server/src/settlement/seed.js';
import {
  DepositSeedChangedError,
  RotationRefusedError,
  acceptDepositSeed,
  seedFingerprint,
} from '../../server/src/settlement/seedGuard.js';
import { startCheckoutHarness, type CheckoutHarness } from '../gateway/checkout.js';
import { testConfig } from '../helpers/config.js';
import { describeEachDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { captureLogs } from '../helpers/logs.js';

describeEachDatabase('settlement.depositSeed', (get) => {
  const silent = pino({ level: 'silent' });
  const seedA = newMnemonic();
  const seedB = newMnemonic();
  const start = (seed: string) =>
    createRuntime({
      config: testConfig({ PAYGATE_DEPOSIT_SEED: seed }),
      db: get().db,
      migrate: false,
      logger: silent,
      checkDepositSeed: true,
    });

  it('start: seed A, then seed B on the same database is refused, saying what happened and what to do; A starts again', async () => {
    await (await start(seedA)).close();
    assert.equal(
      (await get().db.knex('settings').where({ key: 'deposit_seed_collection' }).first('value'))?.value,
      seedFingerprint(seedA),
      'the fingerprint is the seed’s public collection address',
    );

    await assert.rejects(start(seedB), (err: unknown) => {
      assert.ok(err instanceof DepositSeedChangedError);
      assert.match(err.message, /not the deposit seed this database was started with/);
      assert.ok(err.message.includes(seedFingerprint(seedA)) && err.message.includes(seedFingerprint(seedB)));
      assert.match(err.message, /Restore the previous seed/);
      assert.match(err.message, /§22\.0/);
      assert.match(err.message, /paygate admin accept-deposit-seed/);
      for (const words of [seedA, seedB]) {
        assert.ok(!err.message.includes(words.split(' ').slice(0, 2).join(' ')), 'the message names no seed');
      }
      return true;
    });
    await (await start(seedA)).close();
  });

  it('accept-deposit-seed: refused while the ledger says the old seed holds money; accepted when drained or forced', async () => {
    const knex = get().db.knex;
    await knex('settings').delete();
    await (await start(seedA)).close();
    await seedMerchant(knex, 'mer_seedguard0000000000000');
    await insertLedgerEntries(knex, [
      {
        entryKey: 'received:seed-guard',
        kind: 'received',
        merchantId: 'mer_seedguard0000000000000',
        live: true,
        mode: 'collected',
        chain: 'eip155:31337',
        asset: 'eip155:31337/erc20:0x0000000000000000000000000000000000000001',
        amount: 7n,
        address: '0x0000000000000000000000000000000000000002',
        createdAt: 0,
      },
    ]);
    await assert.rejects(acceptDepositSeed(get().db, seedB, 1), (err: unknown) => {
      assert.ok(err instanceof RotationRefusedError);
      assert.match(err.message, /7 minor units at deposit 0x0{39}2/);
      return true;
    });
    await assert.rejects(start(seedB), DepositSeedChangedError);

    const forced = await acceptDepositSeed(get().db, seedB, 2, { force: true });
    assert.deepEqual(forced, { previous: seedFingerprint(seedA), current: seedFingerprint(seedB), changed: true });
    await (await start(seedB)).close();
    await assert.rejects(start(seedA), DepositSeedChangedError);
    await knex('ledger_entries').where({ entry_key: 'received:seed-guard' }).delete();
    assert.equal((await acceptDepositSeed(get().db, seedA, 3)).changed, true, 'nothing held: accepted unforced');
    await (await start(seedA)).close();
  });

  describe('depositAddressesFor', () => {
    let h: CheckoutHarness;
    before(async () => {
      h = await startCheckoutHarness({ db: get().db });
    });
    after(() => h.close());

    it('depositAddressesFor: an address stored under the previous seed is answered as stored, with an error line', async () => {
      const payment = (await findPayment(h.runtime.db.knex, await h.createPayment({ live: false })))!;
      const stored = await depositAddressesFor(h.runtime.checkout!, payment);
      assert.ok(stored.length > 0);

      // The same database under another seed: every derivation differs from what was stored.
      const logs = captureLogs('info');
      const other = createCheckout({ ...h.runtime, logger: logs.logger }, { depositSeed: seedOf(newMnemonic()) })!;
      const answered = await depositAddressesFor({ ...other, logger: logs.logger }, payment);
      assert.deepEqual(answered, stored, 'the stored address, the one detection watches');
      const errors = logs.lines().filter((l) => l.level === 50);
      assert.equal(errors.length, stored.length);
      assert.match(String(errors[0]!.msg), /differs from the one stored/);
      assert.equal(errors[0]!.paymentId, payment.id);
    });
  });
});
