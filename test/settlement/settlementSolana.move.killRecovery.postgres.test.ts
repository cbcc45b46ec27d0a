/**
 * Crash safety of Solana moves with real `paygate worker` processes on PostgreSQL and the run's local Solana chain,
 * as settlement.move.killRecovery does on anvil: a worker killed with SIGKILL after a sweep was prepared (its signed
 * transaction stored, nothing sent), and one killed after a payout's transaction landed but before it heard so, while
 * a second worker runs; the second takes the move on once the dead worker's lease passes and sends the stored bytes
 * (§22.5.4), and each move completes exactly once: on-chain balances exact, `payment.settled` once per payment, the
 * ledger equal to the chain.
 *
 * Each worker reaches the chain through a relay in this process that forwards every call but may stop
 * `sendTransaction` at a chosen point: not forwarded (the sweep), or forwarded with its answer withheld (the payout).
 * The chain is real; only the timing of the kill is pinned, where a race with the worker would make it a coin toss.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { getAddressEncoder, getBase58Decoder, type Address, type Signature } from '@solana/kit';
import { localSolanaPrivateKey } from '@paygate/devchain';
import { MOVE_LEASE_MS } from '../../server/src/settlement/moves.js';
import type { SolanaMoveDetails } from '../../server/src/chains/solana/moveSender.js';
import { newMnemonic } from '../../server/src/settlement/seed.js';
import { listLedgerEntries } from '../../server/src/settlement/ledger.js';
import { planPayouts } from '../../server/src/settlement/payouts.js';
import { planSweeps } from '../../server/src/settlement/sweeps.js';
import { sharedChains } from '../helpers/chain.js';
import { spawnCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { localSolanaRpc } from '../helpers/solana.js';
import { eventually } from '../helpers/wait.js';
import { ASKED, FEE_TOTAL } from './detection.js';
import { startSolanaCollectedHarness, type SolanaCollectedHarness } from './solanaCollected.js';

/** See settlement.move.killRecovery: a worker loads the server through tsx, far slower on a loaded machine. */
const SLOW_MS = 120_000;

/** What the relay does with `sendTransaction`: forward it (`pass`), drop it unanswered, or land it unanswered. */
type SendMode = 'pass' | 'drop' | 'land';

interface Relay {
  url: string;
  mode: SendMode;
  /** `sendTransaction` calls that reached the relay, and those of them that reached the chain. */
  seen: number;
  landed: number;
  close(): Promise<void>;
}

/** A JSON-RPC relay to the local chain: everything passes as it is, except `sendTransaction` per `mode`. */
async function startRelay(target: string, mode: SendMode): Promise<Relay> {
  const relay = { mode, seen: 0, landed: 0 } as Relay;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      void (async () => {
        const isSend = (JSON.parse(body) as { method?: string }).method === 'sendTransaction';
        if (isSend) relay.seen += 1;
        const now = relay.mode;
        if (isSend && now === 'drop') return;
        const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const text = await answer.text();
        if (isSend && now === 'land') {
          relay.landed += 1;
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  relay.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return relay;
}

describe('settlementSolana.move.killRecovery [postgres]', function () {
  let test: TestDatabase;
  let h: SolanaCollectedHarness;
  let dir: string;
  let env: Record<string, string>;
  let rpcUrl: string;
  const workers: ChildProcess[] = [];
  const relays: Relay[] = [];

  beforeEach(async () => {
    test = await createTestDatabase('postgres');
    const seed = newMnemonic();
    h = await startSolanaCollectedHarness({ db: test.db, config: { PAYGATE_DEPOSIT_SEED: seed } });
    dir = mkdtempSync(join(tmpdir(), 'paygate-solana-moves-'));
    const shared = await sharedChains();
    const local = shared.local!.solana;
    rpcUrl = local.rpcUrl;
    const { caip2, name, commitment, assets } = shared.solana.find((c) => c.config.caip2 === h.caip2)!.config;
    // The local fee payer as an operator configures one: its 64-byte secret key (private then public), base58.
    const secret = new Uint8Array([
      ...localSolanaPrivateKey('feePayer'),
      ...getAddressEncoder().encode(local.feePayer.address),
    ]);
    const chainFile = join(dir, 'chains.json');
    writeFileSync(
      chainFile,
      JSON.stringify({
        solanaChains: [
          {
            caip2,
            name,
            // Live, as the harness serves it: the payments are live ones.
            mode: 'live',
            rpcUrl: '${PAYGATE_RPC_SOLANA}',
            commitment,
            explorerTxUrl: null,
            feePayerKey: '${PAYGATE_SOLANA_FEE_PAYER_KEY}',
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
      PAYGATE_SOLANA_FEE_PAYER_KEY: getBase58Decoder().decode(secret),
      // Planning stays with the test; the workers only carry the moves.
      PAYGATE_PAYOUT_INTERVAL_S: '2592000',
      PAYGATE_DEPOSIT_SCAN_INTERVAL_MS: '600000',
    };
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map(killed));
    await Promise.all(relays.splice(0).map((r) => r.close()));
    await h.close();
    await test.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A worker reaching the chain through a relay that handles its sends per `mode`. */
  async function startWorker(mode: SendMode = 'pass'): Promise<Worker> {
    const relay = await startRelay(rpcUrl, mode);
    relays.push(relay);
    const child = spawnCli(['worker', '--json', '--sweep-interval-ms', '200'], {
      ...env,
      PAYGATE_RPC_SOLANA: relay.url,
    });
    workers.push(child);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`worker exited early (${code})\n${stderr}`)));
    });
    assert.equal((JSON.parse(line) as { worker: string }).worker, 'ready');
    return { child, relay };
  }

  /**
   * Two workers started before the move is planned, both with sends stopped per `mode`: the one whose send the relay
   * stopped is doomed; the other's sends pass from then on. Both are warm, so the survivor takes the move as soon as
   * the dead one's lease passes, well within the stored blockhash's life (150 slots, ~60 s of wall time).
   */
  async function pair(mode: 'drop' | 'land', plan: () => Promise<string[]>) {
    const both = [await startWorker(mode), await startWorker(mode)];
    const [id, ...more] = await plan();
    assert.deepEqual(more, [], 'one move');
    const doomed = await eventually(
      `a worker's send of ${id} stopped`,
      async () => both.find((w) => (mode === 'drop' ? w.relay.seen : w.relay.landed) > 0),
      { timeoutMs: SLOW_MS },
    );
    const survivor = both.find((w) => w !== doomed)!;
    assert.equal(survivor.relay.seen, 0, 'the move was the doomed worker’s alone');
    survivor.relay.mode = 'pass';
    return { id: id!, doomed };
  }

  interface Worker {
    child: ChildProcess;
    relay: Relay;
  }

  async function killed(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exit = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exit;
  }

  const row = async (table: 'sweeps' | 'payouts', id: string) =>
    (await h.runtime.db.knex(table).where({ id }).first()) as { state: string; tx_id: string | null; details: string };

  /**
   * Moves the chain past `finalized` while the move is sent (the whole per-process chain: never before it is sent,
   * so its stored blockhash keeps its life). Bounded by the dead worker's lease, its sweep and a loaded machine.
   */
  const finalOf = (table: 'sweeps' | 'payouts', id: string) =>
    eventually(
      `${id} final`,
      async () => {
        const { state } = await row(table, id);
        if (state === 'sent') h.finalize();
        return state === 'final';
      },
      { timeoutMs: MOVE_LEASE_MS + SLOW_MS, intervalMs: 250 },
    );

  /** Whether the chain knows `signature` (landed, with or without error). */
  async function landed(signature: string): Promise<boolean> {
    const rpc = await localSolanaRpc();
    const { value } = await rpc
      .getSignatureStatuses([signature as Signature], { searchTransactionHistory: true })
      .send();
    return value[0] !== null;
  }

  /** Live payments paid by plain transfers, succeeded, their transfers final (as settlementSolana.moves). */
  async function paidPayments(cents: number[], amounts: bigint[]): Promise<{ paymentId: string; deposit: Address }[]> {
    const paid: { paymentId: string; deposit: Address }[] = [];
    for (const [i, c] of cents.entries()) {
      const p = await h.livePayment(c);
      await h.transfer(await h.sender(), [[p.deposit, amounts[i]!]]);
      paid.push(p);
    }
    await h.scanUntil('the payments to succeed', async () =>
      (await Promise.all(paid.map((p) => h.payment(p.paymentId)))).every((p) => p.status === 'succeeded'),
    );
    h.finalize();
    await h.scanUntil('the transfers to be final', async () => {
      const rows = (await h.runtime.db.knex('deposit_transfers').whereIn(
        'payment_id',
        paid.map((p) => p.paymentId),
      )) as { state: string }[];
      return rows.length === paid.length && rows.every((r) => r.state === 'final');
    });
    return paid;
  }

  it('a worker killed after preparing a sweep: the other worker sends the stored transaction once, after the dead one’s lease', async function () {
    this.timeout(420_000);
    const [a, b] = await paidPayments([1250, 777], [ASKED, 7_770_000n]);
    const collection = await h.port.keyAddress(h.caip2, { role: 'collection' });
    const before = await h.balance(collection);

    const { id: sweep, doomed } = await pair('drop', () => planSweeps(h.runtime.checkout!));
    const stored = JSON.parse((await row('sweeps', sweep)).details) as SolanaMoveDetails;
    await killed(doomed.child);
    assert.equal((await row('sweeps', sweep)).state, 'planned', 'nothing was sent before the kill');
    assert.equal(await landed(stored.signature), false, 'the stored transaction had not reached the chain');

    await finalOf('sweeps', sweep);
    const final = await row('sweeps', sweep);
    assert.equal(final.tx_id, stored.signature, 'the stored transaction, sent by the other worker');
    assert.equal((await h.balance(collection)) - before, ASKED + 7_770_000n);
    assert.equal(await h.balance(a!.deposit), 0n);
    assert.equal(await h.balance(b!.deposit), 0n);
    const swept = await listLedgerEntries(h.runtime.db.knex, { kinds: ['swept'] });
    assert.deepEqual(
      swept.map((e) => [e.address, e.amount, e.txId]).sort(),
      [
        [a!.deposit, ASKED, stored.signature],
        [b!.deposit, 7_770_000n, stored.signature],
      ].sort(),
    );
  });

  it('a worker killed after a payout landed, before it heard so: paid out once, each payment settled once', async function () {
    this.timeout(420_000);
    const paid = await paidPayments([1250, 777], [ASKED, 7_770_000n]);
    // Swept by a worker first.
    const first = await startWorker();
    const [sweep] = await planSweeps(h.runtime.checkout!);
    await finalOf('sweeps', sweep!);
    await killed(first.child);

    // 12.50 USD: fee 662,500, payable 11,837,500; 7.77 USD: fee 525,330, payable 7,244,670 (settlementSolana.moves).
    const fee = FEE_TOTAL + 525_330n;
    const net = ASKED - FEE_TOTAL + (7_770_000n - 525_330n);
    const treasury = await h.port.keyAddress(h.caip2, { role: 'devTreasury' });
    const collection = await h.port.keyAddress(h.caip2, { role: 'collection' });
    const treasuryBefore = await h.balance(treasury);

    const { id: payout, doomed } = await pair('land', () => planPayouts(h.runtime.checkout!));
    await killed(doomed.child);
    const stored = JSON.parse((await row('payouts', payout)).details) as SolanaMoveDetails;
    assert.equal((await row('payouts', payout)).state, 'planned', 'the dead worker never recorded the send');
    assert.equal(await landed(stored.signature), true);
    assert.equal(await h.balance(h.payoutAddress), net, 'landed before the kill');

    await finalOf('payouts', payout);
    assert.equal((await row('payouts', payout)).tx_id, stored.signature);
    assert.equal(await h.balance(h.payoutAddress), net, 'paid out once');
    assert.equal((await h.balance(treasury)) - treasuryBefore, fee);
    assert.equal(await h.balance(collection), 0n);
    const settled = (await h.runtime.db.knex('events').where({ type: 'payment.settled' })) as { payment_id: string }[];
    assert.deepEqual(settled.map((e) => e.payment_id).sort(), paid.map((p) => p.paymentId).sort());
    const paidOut = await listLedgerEntries(h.runtime.db.knex, { kinds: ['paid_out', 'fee_paid'] });
    assert.deepEqual(
      paidOut.map((e) => [e.kind, e.amount, e.address, e.txId]).sort(),
      [
        ['fee_paid', fee, treasury, stored.signature],
        ['paid_out', net, h.payoutAddress, stored.signature],
      ].sort(),
    );
  });
});
