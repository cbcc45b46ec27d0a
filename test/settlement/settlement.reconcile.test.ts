/**
 * Reconciliation (settlement/reconciliation.ts) against the run's anvil: a deliberate difference (funds without a
 * ledger row, a ledger row without funds) shows as a metric and a log line. A shortfall fails readiness until the
 * ledger and the chain agree again; a surplus never does (anyone can send to a public address), and one at a deposit
 * address is recorded as an `unwatched_deposit` finding instead.
 */
import assert from 'node:assert/strict';
import { createApp, createRuntime, type Runtime } from '@paygate/server';
import { createWalletClient, http, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { erc20Abi } from '../../server/src/chains/eip155/abis.js';
import { fundAccount } from '../../server/src/chains/faucet.js';
import type { Chains } from '../../server/src/chains/index.js';
import { insertLedgerEntries } from '../../server/src/settlement/ledger.js';
import { PENDING_MS, createReconciler } from '../../server/src/settlement/reconciliation.js';
import { WATCH_AFTER_END_MS, scanDeposits } from '../../server/src/settlement/collected/detection.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { sharedChains, useChainSnapshots } from '../helpers/chain.js';
import { testConfig } from '../helpers/config.js';
import { describeEachDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { listen, type Listening } from '../helpers/http.js';
import { captureLogs, type CapturedLogs } from '../helpers/logs.js';
import { testClock, type TestClock } from '../helpers/runtime.js';
import { receiptOf } from '../helpers/wait.js';

interface ReadyBody {
  checks: Record<string, { status: string }>;
}

describeEachDatabase('settlement.reconcile', (get, dialect) => {
  useChainSnapshots();
  let runtime: Runtime;
  let server: Listening;
  let clock: TestClock;
  let logs: CapturedLogs;
  let chains: Chains;
  let merchantId: string;
  let chain: string;
  let tusd: string;

  before(async () => {
    chains = await sharedChains();
    clock = testClock();
    logs = captureLogs('info');
    runtime = await createRuntime({
      config: testConfig(),
      db: get().db,
      migrate: false,
      logger: logs.logger,
      now: clock.now,
      chains,
    });
    server = await listen(createApp({ runtime }));
    merchantId = await seedMerchant(get().db.knex, `mer_reconcile${dialect.slice(0, 3)}00000`);
    chain = chains.local!.evm.config.caip2;
    tusd = `${chain}/erc20:${chains.local!.evm.testUsd}`;
  });
  // The chain is reverted after each test (its funds are gone), so the ledger rows and addresses go too.
  afterEach(async () => {
    const knex = get().db.knex;
    await knex('ledger_entries').delete();
    await knex('sweeps').delete();
    await knex('discrepancies').delete();
    await knex('deposit_transfers').delete();
    await knex('scan_cursors').delete();
    await knex('deposit_addresses').delete();
  });
  after(async () => {
    await server.close();
    await runtime.close();
  });

  /** A payment with a deposit address on the local EVM chain, as the deposit allocation writes it. */
  async function depositAddress(): Promise<string> {
    const knex = get().db.knex;
    const payment = await createPayment(runtime, {
      merchantId,
      live: true,
      referenceId: 'order-1',
      amount: { unit: 'iso4217/USD', value: '500' },
      expiresAt: clock.now() + 60 * 60_000,
      successUrl: null,
      errorUrl: null,
    });
    const [row] = (await knex('deposit_accounts')
      .insert({ payment_id: payment.id, created_at: clock.now() })
      .returning('derivation_index')) as ({ derivation_index: number } | number)[];
    const index = typeof row === 'number' ? row : row!.derivation_index;
    const port = runtime.checkout!.adapters.find((a) => a.namespace === chain.split(':')[0])!.settlement!;
    const address = await port.keyAddress(chain, { role: 'deposit', index });
    await knex('deposit_addresses').insert({
      chain_caip2: chain,
      address,
      payment_id: payment.id,
      derivation_index: index,
      created_at: clock.now(),
    });
    return address;
  }

  /** A plain TUSD transfer from a wallet that never saw Paygate, as an exchange would send it. */
  async function transfer(to: string, amount: bigint): Promise<void> {
    const local = chains.local!.evm;
    const account = privateKeyToAccount(generatePrivateKey());
    await fundAccount(chains.local!, {
      account: `${chain}:${account.address}`,
      asset: tusd,
      amount: amount.toString(),
    });
    const wallet = createWalletClient({ account, chain: local.clients.chain, transport: http(local.config.rpcUrl) });
    const hash = await wallet.writeContract({
      address: local.testUsd,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [to as Address, amount],
    });
    assert.equal((await receiptOf(local.clients.public, hash)).status, 'success');
  }

  const received = (address: string, amount: bigint, key: string) =>
    insertLedgerEntries(get().db.knex, [
      {
        entryKey: `received:${key}`,
        kind: 'received',
        merchantId,
        live: true,
        mode: 'collected',
        chain,
        asset: tusd,
        amount,
        address,
        createdAt: clock.now(),
      },
    ]);

  async function readyz(): Promise<{ status: number; body: ReadyBody }> {
    const res = await fetch(`${server.url}/readyz`);
    return { status: res.status, body: (await res.json()) as ReadyBody };
  }

  async function gauge(name: string, role: string): Promise<number | undefined> {
    const metric = await runtime.metrics.registry.getSingleMetric(name)!.get();
    return metric.values.find((v) => v.labels.chain === chain && v.labels.asset === tusd && v.labels.role === role)
      ?.value;
  }

  const differenceLines = (address: string) =>
    logs.lines().filter((l) => l.msg === 'reconciliation difference' && l.address === address);

  const findings = (address: string) =>
    get()
      .db.knex('discrepancies')
      .join('deposit_addresses', 'deposit_addresses.payment_id', 'discrepancies.payment_id')
      .where({ 'deposit_addresses.address': address, 'discrepancies.kind': 'unwatched_deposit' })
      .orderBy('discrepancies.received_value')
      .select(
        'discrepancies.kind',
        'discrepancies.chain_caip2',
        'discrepancies.tx_id',
        'discrepancies.asset_unit',
        'discrepancies.expected_value',
        'discrepancies.received_value',
      ) as Promise<Record<string, string | null>[]>;

  it('run: funds at a deposit without a ledger row are pending, then stand as a surplus: metric, warn line, a finding, readiness 200', async () => {
    const address = await depositAddress();
    await transfer(address, 5_000_000n);

    const first = await runtime.reconciler!.run();
    const pending = first.differences.find((d) => d.address === address);
    assert.equal(pending?.state, 'pending');
    assert.equal(pending.difference, 5_000_000n);
    assert.equal(await gauge('paygate_reconciliation_pending_difference', 'deposit'), 5_000_000);
    assert.equal(await gauge('paygate_reconciliation_difference', 'deposit'), 0);
    assert.equal((await readyz()).status, 200, 'a pending difference does not fail readiness');
    assert.deepEqual(await findings(address), [], 'money on its way is no finding yet');

    clock.advance(PENDING_MS);
    const second = await runtime.reconciler!.run();
    assert.equal(second.differences.find((d) => d.address === address)?.state, 'standing');
    assert.equal(await gauge('paygate_reconciliation_surplus', 'deposit'), 5_000_000);
    assert.equal(
      await gauge('paygate_reconciliation_difference', 'deposit'),
      0,
      'the alerting gauge counts shortfalls',
    );
    const lastRun = await runtime.metrics.registry
      .getSingleMetric('paygate_reconciliation_last_run_timestamp_seconds')!
      .get();
    assert.equal(lastRun.values[0]!.value, clock.now() / 1000);
    const line = differenceLines(address).at(-1)!;
    assert.deepEqual(
      { role: line.role, expected: line.expected, actual: line.actual, difference: line.difference, state: line.state },
      { role: 'deposit', expected: '0', actual: '5000000', difference: '5000000', state: 'standing' },
    );
    assert.equal(line.level, 40, 'a surplus is a warn line: it is a finding, not an alarm');
    const ready = await readyz();
    assert.equal(ready.status, 200);
    assert.equal(ready.body.checks.reconciliation!.status, 'ok');
    assert.deepEqual(await findings(address), [
      {
        kind: 'unwatched_deposit',
        chain_caip2: chain,
        tx_id: null,
        asset_unit: `caip19/${tusd}`,
        expected_value: '0',
        received_value: '5000000',
      },
    ]);

    // Detection catches up: the ledger now knows the transfer.
    await received(address, 5_000_000n, `${address}:stray`);
    const third = await runtime.reconciler!.run();
    assert.equal(third.differences.filter((d) => d.chain === chain).length, 0);
    assert.equal(await gauge('paygate_reconciliation_surplus', 'deposit'), 0);
    assert.equal((await readyz()).status, 200);
  });

  it('readiness: a transfer to a deposit address detection no longer watches is one finding per amount, never a 503', async () => {
    const address = await depositAddress();
    const knex = get().db.knex;
    const { payment_id: paymentId } = (await knex('deposit_addresses').where({ address }).first('payment_id')) as {
      payment_id: string;
    };
    await knex('payments').where({ id: paymentId }).update({ status: 'expired', updated_at: clock.now() });
    clock.advance(WATCH_AFTER_END_MS + 60_000);
    // Anyone may send to a public address, long after its payment ended.
    await transfer(address, 1n);
    await scanDeposits(runtime.checkout!, chain);
    assert.deepEqual(
      await knex('deposit_transfers').where({ payment_id: paymentId }).select('id'),
      [],
      'detection no longer watches the address',
    );

    await runtime.reconciler!.run();
    clock.advance(PENDING_MS);
    await runtime.reconciler!.run();
    await runtime.reconciler!.run();
    const ready = await readyz();
    assert.equal(ready.status, 200);
    assert.equal(ready.body.checks.reconciliation!.status, 'ok');
    assert.deepEqual(
      (await findings(address)).map((f) => [f.kind, f.expected_value, f.received_value]),
      [['unwatched_deposit', '0', '1']],
      'recorded once, however many runs see it',
    );

    await transfer(address, 2n);
    clock.advance(PENDING_MS);
    await runtime.reconciler!.run();
    assert.deepEqual(
      (await findings(address)).map((f) => [f.kind, f.expected_value, f.received_value]),
      [
        ['unwatched_deposit', '0', '1'],
        ['unwatched_deposit', '0', '3'],
      ],
      'a new amount is a new finding',
    );
    assert.equal((await readyz()).status, 200);

    // A real shortfall beside it still fails readiness.
    const short = await depositAddress();
    await received(short, 4n, `${short}:short`);
    await runtime.reconciler!.run();
    assert.equal((await readyz()).status, 503);
    await knex('ledger_entries')
      .where({ entry_key: `received:${short}:short` })
      .delete();
    await runtime.reconciler!.run();
    assert.equal((await readyz()).status, 200);
  });

  it('run: a ledger row without funds stands at once (no move in flight explains it), and clears once funded', async () => {
    const address = await depositAddress();
    await received(address, 3_000_000n, `${address}:nofunds`);
    const result = await runtime.reconciler!.run();
    const difference = result.differences.find((d) => d.address === address);
    assert.equal(difference?.state, 'standing');
    assert.equal(difference.expected, 3_000_000n);
    assert.equal(difference.actual, 0n);
    assert.equal(await gauge('paygate_reconciliation_difference', 'deposit'), -3_000_000);
    assert.equal(differenceLines(address).at(-1)?.level, 50, 'a standing shortfall is an error line');
    assert.equal((await readyz()).status, 503);

    await transfer(address, 3_000_000n);
    await runtime.reconciler!.run();
    assert.equal(differenceLines(address).length, 1, 'one line per difference per run');
    assert.equal((await readyz()).status, 200);
  });

  it('run: the collection account short of the ledger stands; a sweep in flight makes it pending', async () => {
    const port = runtime.checkout!.adapters.find(
      (a) => a.settlement && a.namespace === chain.split(':')[0],
    )!.settlement!;
    const collection = await port.keyAddress(chain, { role: 'collection' });
    const address = await depositAddress();
    await insertLedgerEntries(get().db.knex, [
      {
        entryKey: `swept:${address}`,
        kind: 'swept',
        merchantId,
        live: true,
        mode: 'collected',
        chain,
        asset: tusd,
        amount: 2_000_000n,
        address,
        createdAt: clock.now(),
      },
      {
        entryKey: `received:${address}:swept`,
        kind: 'received',
        merchantId,
        live: true,
        mode: 'collected',
        chain,
        asset: tusd,
        amount: 2_000_000n,
        address,
        createdAt: clock.now(),
      },
    ]);
    const standing = await runtime.reconciler!.run();
    const short = standing.differences.find((d) => d.address === collection && d.asset === tusd);
    assert.equal(short?.role, 'collection');
    assert.equal(short.state, 'standing');
    assert.equal(short.difference, -2_000_000n);

    await get().db.knex('sweeps').insert({
      id: 'swp_reconcile000000000000000',
      chain_caip2: chain,
      asset_caip19: tusd,
      from_address: address,
      to_address: collection,
      amount: '2000000',
      state: 'sent',
      details: '{}',
      created_at: clock.now(),
      updated_at: clock.now(),
    });
    const moving = await runtime.reconciler!.run();
    assert.equal(moving.differences.find((d) => d.address === collection && d.asset === tusd)?.state, 'pending');
    await get().db.knex('sweeps').where({ id: 'swp_reconcile000000000000000' }).delete();
    await get()
      .db.knex('ledger_entries')
      .whereIn('entry_key', [`swept:${address}`, `received:${address}:swept`])
      .delete();
    await runtime.reconciler!.run();
    assert.equal((await readyz()).status, 200);
  });

  it('readiness: money sent to the collection account is reported, never fails readiness (a public address)', async () => {
    const port = runtime.checkout!.adapters.find(
      (a) => a.settlement && a.namespace === chain.split(':')[0],
    )!.settlement!;
    const collection = await port.keyAddress(chain, { role: 'collection' });
    await transfer(collection, 1n);
    clock.advance(PENDING_MS);
    const result = await runtime.reconciler!.run();
    const surplus = result.differences.find((d) => d.address === collection && d.asset === tusd);
    assert.deepEqual([surplus?.role, surplus?.state, surplus?.difference], ['collection', 'standing', 1n]);
    assert.equal(await gauge('paygate_reconciliation_surplus', 'collection'), 1);
    assert.equal(await gauge('paygate_reconciliation_difference', 'collection'), 0);
    assert.equal((await readyz()).status, 200);
  });

  it('readiness: with PAYGATE_RECONCILE_READINESS=false a standing difference is reported but /readyz stays ready', async () => {
    const address = await depositAddress();
    await received(address, 1n, `${address}:off`);
    const reconciler = createReconciler({
      db: get().db,
      chains,
      adapters: runtime.checkout!.adapters,
      settlement: { treasury: {}, reconcileReadiness: false },
      development: true,
      now: clock.now,
      logger: logs.logger,
      observer: runtime.observer,
    });
    const result = await reconciler.run();
    assert.equal(result.differences.find((d) => d.address === address)?.state, 'standing');
    await reconciler.readiness.check(new AbortController().signal);
    await get()
      .db.knex('ledger_entries')
      .where({ entry_key: `received:${address}:off` })
      .delete();
  });
});
