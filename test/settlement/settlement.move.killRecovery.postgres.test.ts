/**
 * Crash safety of moves with real `paygate worker` processes on PostgreSQL and the run's anvil: a worker killed with
 * SIGKILL after a sweep was prepared (its authorizations stored, nothing sent), and one killed right after a payout's
 * transaction reached the node, are followed by a restarted worker beside a second one; each move completes exactly
 * once: on-chain balances exact, every authorization used once.
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
  useChainSnapshots();
  let test: TestDatabase;
  let h: CollectedHarness;
  let dir: string;
  let env: Record<string, string>;
  const workers: ChildProcess[] = [];

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
    for (const w of workers.splice(0)) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await h.local.test.setAutomine(true);
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
    const exit = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exit;
  }

  const row = async (table: string, id: string) =>
    (await h.runtime.db.knex(table).where({ id }).first()) as { state: string; tx_id: string | null; details: string };

  /** Mines while waiting, so that the finalized block passes the move's transaction. */
  const finalOf = (table: string, id: string) =>
    eventually(
      `${id} final`,
      async () => {
        await h.local.test.mine({ blocks: 16 });
        return (await row(table, id)).state === 'final';
      },
      { timeoutMs: SLOW_MS, intervalMs: 250 },
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

  it('a worker killed after preparing a sweep: a restarted worker sends it once', async function () {
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
      await killed(doomed);
      assert.equal((await row('sweeps', sweep!)).state, 'planned', 'nothing was sent before the kill');
      // Started again, beside a second worker: either may carry the move on.
      await startWorker();
      await startWorker();
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
    await killed(doomed);
    await startWorker();
    await startWorker();
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
