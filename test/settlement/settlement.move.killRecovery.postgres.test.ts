/**
 * Crash safety of moves with real `paygate worker` processes on PostgreSQL and the run's anvil: a worker killed with
 * SIGKILL after a sweep was prepared (its authorizations stored, nothing sent), and one killed right after a payout's
 * transaction reached the node, while a second worker runs; the second takes the move on once the dead worker's lease
 * passes (settlement/moves.ts, no restart and no 4-hour lock), and each move completes exactly once: on-chain
 * balances exact, every authorization used once, the ledger equal to the chain.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Knex } from 'knex';
import { getAddress } from 'viem';
import { eip3009Abi } from '../../server/src/chains/eip155/abis.js';
import { MOVE_LEASE_MS } from '../../server/src/settlement/moves.js';
import type { EvmMoveDetails } from '../../server/src/chains/eip155/moves.js';
import { newMnemonic } from '../../server/src/settlement/seed.js';
import { listLedgerEntries } from '../../server/src/settlement/ledger.js';
import { planPayouts } from '../../server/src/settlement/payouts.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { spawnCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { eventually } from '../helpers/wait.js';
import { paidDeposit, startCollectedHarness, type CollectedHarness, type PaidDeposit } from './collected.js';

/**
 * A worker process loads the server through tsx and takes its first job within seconds on an idle machine, but far
 * later on a loaded one (a failed first attempt waits graphile-worker's backoff): the waits on workers are longer.
 */
const SLOW_MS = 120_000;

describe('settlement.move.killRecovery [postgres]', function () {
  let test: TestDatabase;
  let h: CollectedHarness;
  let dir: string;
  let env: Record<string, string>;
  const workers: ChildProcess[] = [];

  // Registered before the chain snapshot's hook, so it runs first: no worker may send anything after the revert.
  afterEach(async () => {
    await Promise.all(workers.splice(0).map(killed));
    await h.local.test.setAutomine(true);
  });
  useChainSnapshots();

  beforeEach(async () => {
    test = await createTestDatabase('postgres');
    const seed = newMnemonic();
    h = await startCollectedHarness(test.db, { PAYGATE_DEPOSIT_SEED: seed });
    dir = mkdtempSync(join(tmpdir(), 'paygate-moves-'));
    // The run's anvil, described to the workers as an operator's chain file.
    const { relayerKey, rpcUrl, caip2, name, confirmations, assets } = h.local.config;
    const chainFile = join(dir, 'chains.json');
    writeFileSync(
      chainFile,
      JSON.stringify({
        chains: [
          {
            caip2,
            name,
            mode: 'test',
            confirmations,
            rpcUrl: '${PAYGATE_RPC_LOCAL}',
            relayerKey: '${PAYGATE_RELAYER_KEY}',
            assets,
          },
        ],
      }),
    );
    env = {
      DATABASE_URL: test.url,
      PAYGATE_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
      PAYGATE_OPTION_SECRET: randomBytes(32).toString('base64'),
      PAYGATE_DEPOSIT_SEED: seed,
      PAYGATE_CHAINS: chainFile,
      PAYGATE_RPC_LOCAL: rpcUrl,
      PAYGATE_RELAYER_KEY: relayerKey,
      // Planning stays with the test; the workers only carry the moves.
      PAYGATE_PAYOUT_INTERVAL_S: '2592000',
      PAYGATE_DEPOSIT_SCAN_INTERVAL_MS: '600000',
    };
  });

  afterEach(async () => {
    await h.close();
    await test.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function startWorker(): Promise<ChildProcess> {
    const child = spawnCli(['worker', '--json', '--sweep-interval-ms', '200'], env);
    workers.push(child);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`worker exited early (${code})\n${stderr}`)));
    });
    assert.equal((JSON.parse(line) as { worker: string }).worker, 'ready');
    return child;
  }

  async function killed(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exit = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exit;
  }

  const row = async (table: string, id: string) =>
    (await h.runtime.db.knex(table).where({ id }).first()) as { state: string; tx_id: string | null; details: string };

  /**
   * Mines while waiting, so that the finalized block passes the move's transaction. Bounded by the dead worker's
   * lease, its sweep and a worker's pace on a loaded machine.
   */
  const finalOf = (table: string, id: string) =>
    eventually(
      `${id} final`,
      async () => {
        await h.local.test.mine({ blocks: 16 });
        return (await row(table, id)).state === 'final';
      },
      { timeoutMs: MOVE_LEASE_MS + SLOW_MS, intervalMs: 250 },
    );

  async function usesOf(details: EvmMoveDetails) {
    const logs = await h.local.clients.public.getContractEvents({
      address: h.local.testUsd,
      abi: eip3009Abi,
      eventName: 'AuthorizationUsed',
      fromBlock: BigInt(details.fromBlock),
    });
    return logs.filter((l) => details.legs.some((leg) => leg.nonce === l.args.nonce));
  }

  it('a worker killed after preparing a sweep: the other worker sends it once, after the dead one’s lease', async function () {
    this.timeout(420_000);
    const a = await paidDeposit(h, 4_000_000n, 40_000n);
    const b = await paidDeposit(h, 6_000_003n, 60_003n);
    const collection = await h.checkout.adapters[0]!.settlement!.keyAddress(h.chain, { role: 'collection' });
    const before = await h.balance(collection);
    const relayer = h.local.clients.relayer.account.address;
    // The relayer's turn is held, so the worker stops between storing the authorizations and sending them.
    const hold: Knex.Transaction = await h.runtime.db.knex.transaction();
    try {
      await hold('relayer_nonces')
        .insert({ chain_caip2: h.chain, address: relayer, next_nonce: 0 })
        .onConflict(['chain_caip2', 'address'])
        .ignore();
      await hold.raw('SELECT 1 FROM relayer_nonces WHERE chain_caip2 = ? AND address = ? FOR UPDATE', [
        h.chain,
        relayer,
      ]);
      const doomed = await startWorker();
      const [sweep] = await planSweeps(h.checkout);
      await eventually('the sweep prepared', async () => (await row('sweeps', sweep!)).details !== '{}', {
        timeoutMs: SLOW_MS,
      });
      // The other worker starts (and hands every open move its job again) while the first holds the move's lease.
      await startWorker();
      await killed(doomed);
      assert.equal((await row('sweeps', sweep!)).state, 'planned', 'nothing was sent before the kill');
      await hold.rollback();
      await finalOf('sweeps', sweep!);
      const details = JSON.parse((await row('sweeps', sweep!)).details) as EvmMoveDetails;
      const uses = await usesOf(details);
      assert.equal(uses.length, 2, 'each leg once');
      assert.equal((await h.balance(collection)) - before, a.amount + b.amount);
      assert.equal(await h.balance(a.address), 0n);
      assert.equal(await h.balance(b.address), 0n);
      const swept = await listLedgerEntries(h.runtime.db.knex, { kinds: ['swept'] });
      assert.equal(
        swept.reduce((s, e) => s + e.amount, 0n),
        a.amount + b.amount,
      );
    } finally {
      if (!hold.isCompleted()) await hold.rollback();
    }
  });

  it('a worker killed right after a payout reached the node: paid out once, each payment settled once', async function () {
    this.timeout(420_000);
    const deposits: PaidDeposit[] = [
      await paidDeposit(h, 2_500_000n, 25_000n),
      await paidDeposit(h, 1_000_001n, 10_001n),
    ];
    // Swept by a worker first.
    const first = await startWorker();
    const [sweep] = await planSweeps(h.checkout);
    await finalOf('sweeps', sweep!);
    await killed(first);

    const net = deposits.reduce((s, d) => s + d.payable, 0n);
    const fee = deposits.reduce((s, d) => s + d.fee, 0n);
    const treasury = getAddress(await h.checkout.adapters[0]!.settlement!.keyAddress(h.chain, { role: 'devTreasury' }));
    const treasuryBefore = await h.balance(treasury);
    const relayer = h.local.clients.relayer.account.address;
    const nonceBefore = await h.local.clients.public.getTransactionCount({ address: relayer, blockTag: 'pending' });

    await h.local.test.setAutomine(false);
    const doomed = await startWorker();
    const [payout] = await planPayouts(h.checkout);
    await eventually(
      'the payout at the node',
      async () => {
        const pending = await h.local.clients.public.getTransactionCount({ address: relayer, blockTag: 'pending' });
        return pending > nonceBefore;
      },
      { timeoutMs: SLOW_MS },
    );
    await startWorker();
    await killed(doomed);
    await h.local.test.setAutomine(true);
    await finalOf('payouts', payout!);

    const details = JSON.parse((await row('payouts', payout!)).details) as EvmMoveDetails;
    assert.equal((await usesOf(details)).length, 2, 'net and fee legs once each');
    assert.equal(await h.balance(h.payoutAddress), net);
    assert.equal((await h.balance(treasury)) - treasuryBefore, fee);
    const settled = (await h.runtime.db.knex('events').where({ type: 'payment.settled' })) as { payment_id: string }[];
    assert.deepEqual(settled.map((e) => e.payment_id).sort(), deposits.map((d) => d.paymentId).sort());
    const paidOut = await listLedgerEntries(h.runtime.db.knex, { kinds: ['paid_out', 'fee_paid'] });
    assert.deepEqual(paidOut.map((e) => e.amount).sort(), [net, fee].sort());
  });
});
