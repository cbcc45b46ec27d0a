/**
 * `paygate admin` settlement commands: set-settlement-mode, fees list/invoice, new-deposit-seed, accept-deposit-seed
 * (with `paygate start` refusing a changed seed), create-merchant's mode.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEncryptionKeys } from '../../server/src/config.js';
import { SecretBox } from '../../server/src/crypto/secretBox.js';
import { findMerchant } from '../../server/src/db/queries/accounts.js';
import { insertLedgerEntries } from '../../server/src/settlement/ledger.js';
import { isValidMnemonic, newMnemonic } from '../../server/src/settlement/seed.js';
import { seedFingerprint } from '../../server/src/settlement/seedGuard.js';
import { expectFailure, parseJson, runCliInProcess } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

const EVM = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const USDC = 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

describe('cli.admin.settlement [sqlite]', function () {
  let t: TestDatabase;
  let env: Record<string, string>;
  let partnerId: string;
  const run = (...args: string[]) => runCliInProcess(args, env);

  before(async () => {
    t = await createTestDatabase('sqlite');
    env = { DATABASE_URL: t.url, PAYGATE_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}` };
    partnerId = parseJson<{ id: string }>(await run('admin', 'create-partner', '--name', 'Acme', '--json')).id;
  });
  after(async () => {
    await t.drop();
  });

  it('new-deposit-seed prints a fresh valid 24-word mnemonic and a warning to store it offline', async () => {
    const a = await run('admin', 'new-deposit-seed');
    assert.equal(a.code, 0);
    const [words, , warning] = a.stdout.split('\n');
    assert.equal(words!.split(' ').length, 24);
    assert.ok(isValidMnemonic(words!));
    assert.match(warning!, /offline/);
    const b = parseJson<{ mnemonic: string }>(await run('admin', 'new-deposit-seed', '--json'));
    assert.ok(isValidMnemonic(b.mnemonic));
    assert.notEqual(b.mnemonic, words);
  });

  it('create-merchant --settlement-mode and set-settlement-mode, refused without a payout address or a seed', async () => {
    const created = parseJson<{ id: string }>(
      await run(
        'admin',
        'create-merchant',
        '--partner',
        partnerId,
        '--name',
        'Collected shop',
        '--settlement',
        `eip155:8453=${EVM}`,
        '--settlement-mode',
        'collected',
        '--json',
      ),
    );
    assert.equal((await findMerchant(t.db.knex, created.id))?.settlement_mode, 'collected');
    expectFailure(
      await run('admin', 'create-merchant', '--partner', partnerId, '--name', 'x', '--settlement-mode', 'both'),
      2,
      /--settlement-mode must be direct or collected/,
    );
    const bare = parseJson<{ id: string }>(
      await run('admin', 'create-merchant', '--partner', partnerId, '--name', 'Bare', '--json'),
    );
    expectFailure(await run('admin', 'set-settlement-mode', bare.id, 'collected'), 1, /settlement addresses/);
    assert.equal((await findMerchant(t.db.knex, bare.id))?.settlement_mode, 'direct');

    const back = await run('admin', 'set-settlement-mode', created.id, 'direct');
    assert.equal(back.code, 0, back.stderr);
    assert.match(back.stdout, /direct mode from its next payment on/);
    assert.equal((await findMerchant(t.db.knex, created.id))?.settlement_mode, 'direct');
    // The change is in the merchant's audit log, by the operator, with the modes (sealed like every entry's details).
    const audit = (await t.db.knex('audit_log').where({ merchant_id: created.id })) as Record<string, string | null>[];
    assert.deepEqual(
      audit.map((r) => [r.actor_kind, r.actor_id, r.action, r.mode, r.target, r.ip_sealed]),
      [['operator', 'cli', 'setSettlementMode', null, null, null]],
    );
    const box = new SecretBox(parseEncryptionKeys(env.PAYGATE_ENCRYPTION_KEY!));
    assert.deepEqual(JSON.parse(box.open(audit[0]!.details_sealed!, `audit_log.details_sealed:${audit[0]!.id}`)), {
      from: 'collected',
      to: 'direct',
    });

    // A server outside development has no seed unless one is configured.
    const staging = {
      ...env,
      PAYGATE_ENV: 'staging',
      PUBLIC_BASE_URL: 'https://pay.example.com',
      PAYGATE_OPTION_SECRET: randomBytes(32).toString('base64'),
      PAYGATE_CHAINS: 'testnet',
    };
    expectFailure(
      await runCliInProcess(['admin', 'set-settlement-mode', created.id, 'collected'], staging),
      1,
      /PAYGATE_DEPOSIT_SEED/,
    );
  });

  it('fees list shows exact balances; fees invoice invoices the outstanding amount once per invoice id', async () => {
    const merchantId = parseJson<{ id: string }>(
      await run('admin', 'create-merchant', '--partner', partnerId, '--name', 'Fees', '--json'),
    ).id;
    const big = 2n ** 64n + 1n;
    const fee = { kind: 'fee' as const, merchantId, live: true, mode: 'direct' as const, address: null, createdAt: 0 };
    await insertLedgerEntries(t.db.knex, [
      { ...fee, entryKey: 'fee:pay_a', chain: 'eip155:8453', asset: USDC, amount: big },
      { ...fee, entryKey: 'fee:pay_b', chain: 'eip155:8453', asset: USDC, amount: 9n },
      { ...fee, entryKey: 'fee:pay_c', live: false, chain: 'eip155:8453', asset: USDC, amount: 5n },
    ]);
    const listed = parseJson<{ balances: Record<string, string>[] }>(
      await run('admin', 'fees', 'list', '--merchant', merchantId, '--json'),
    );
    assert.deepEqual(
      listed.balances.map((b) => [b.mode, b.accrued, b.invoiced, b.outstanding]),
      [
        ['test', '5', '0', '5'],
        ['live', (big + 9n).toString(), '0', (big + 9n).toString()],
      ],
    );

    const invoiced = parseJson<{ repeated: boolean; lines: { asset: string; amount: string }[] }>(
      await run('admin', 'fees', 'invoice', merchantId, '--invoice', 'INV-2026-001', '--json'),
    );
    assert.deepEqual(invoiced, {
      merchantId,
      invoiceId: 'INV-2026-001',
      mode: 'live',
      repeated: false,
      lines: [{ chain: 'eip155:8453', asset: USDC, amount: (big + 9n).toString() }],
    });
    const again = await run('admin', 'fees', 'invoice', merchantId, '--invoice', 'INV-2026-001');
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already recorded; nothing more invoiced/);
    assert.match(again.stdout, new RegExp(`${USDC}  ${big + 9n}`));
    const after = parseJson<{ balances: Record<string, string>[] }>(
      await run('admin', 'fees', 'list', '--merchant', merchantId, '--mode', 'live', '--json'),
    );
    assert.deepEqual(
      after.balances.map((b) => [b.accrued, b.invoiced, b.outstanding]),
      [[(big + 9n).toString(), (big + 9n).toString(), '0']],
    );
    expectFailure(await run('admin', 'fees', 'invoice', merchantId), 2, /--invoice <id> is required/);
    expectFailure(
      await run('admin', 'fees', 'invoice', 'mer_nobody', '--invoice', 'INV-1'),
      1,
      /No merchant with id mer_nobody/,
    );
  });

  it('accept-deposit-seed records the seed; start with another seed is refused (exit 1, what to do); accepted, it is the one start takes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'paygate-seed-'));
    const [seedA, seedB] = [newMnemonic(), newMnemonic()];
    const seeded = (seed: string) => ({
      ...env,
      PAYGATE_ENV: 'development',
      PAYGATE_DATA_DIR: dataDir,
      PAYGATE_OPTION_SECRET: randomBytes(32).toString('base64'),
      PAYGATE_DEPOSIT_SEED: seed,
      PORT: '0',
    });
    try {
      const first = parseJson<{ current: string; changed: boolean }>(
        await runCliInProcess(['admin', 'accept-deposit-seed', '--json'], seeded(seedA)),
      );
      assert.deepEqual(first, { previous: null, current: seedFingerprint(seedA), changed: true });

      const refused = await runCliInProcess(['start'], seeded(seedB));
      expectFailure(refused, 1, /not the deposit seed this database was started with/);
      assert.match(refused.stderr, /Restore the previous seed.*accept-deposit-seed/);
      assert.ok(!refused.stderr.includes(seedB) && !refused.stderr.includes(seedA));

      const accepted = await runCliInProcess(['admin', 'accept-deposit-seed'], seeded(seedB));
      assert.equal(accepted.code, 0);
      assert.match(
        accepted.stdout,
        new RegExp(`collection account ${seedFingerprint(seedB)}; it was ${seedFingerprint(seedA)}`),
      );
      expectFailure(await runCliInProcess(['start'], seeded(seedA)), 1, /not the deposit seed/);
    } finally {
      await t.db.knex('settings').delete();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
