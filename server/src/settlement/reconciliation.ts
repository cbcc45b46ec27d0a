/**
 * Reconciliation (docs/decisions.md §22.6): the ledger says what each settlement account should hold; the chains say
 * what it holds. Every chain whose adapter offers settlement is compared, account by account:
 *   deposit     Σ received − Σ swept at that deposit address, per asset
 *   collection  Σ swept − Σ paid_out − Σ fee_paid − Σ refunded − Σ excess_refunded, per chain and asset (refunds not
 *               sent yet and released ones added back); an excess not refunded is in it, swept with its deposit
 *   treasury    at least Σ fee_paid: the operator's treasury may hold other money, so only a shortfall counts
 * A difference is `pending` while it can be money on its way (a deposit holding more than the ledger knows, before
 * detection and finality catch up; an account with a move planned or sent) for at most PENDING_MS, then `standing`.
 * Every difference is a log line and a metric. Only a standing shortfall (money missing anywhere) alerts: it fails the
 * `reconciliation` readiness check (when PAYGATE_RECONCILE_READINESS is on), is an error line and counts in the
 * `paygate_reconciliation_difference` gauge. A surplus never does, wherever it is (docs/decisions.md §22.15): every
 * settlement address is public, anyone can send money to it (to a deposit address long after detection stopped
 * watching it), and failing readiness on that would hand anyone an off switch. A standing surplus at a deposit
 * address is recorded as an `unwatched_deposit` finding instead (reconciliationFindings.ts).
 */
import type { Logger } from 'pino';
import type { ChainAdapter, SettlementPort } from '../chains/adapter.js';
import { forNamespaceOf } from '../chains/adapters.js';
import { allChains, type Chains } from '../chains/index.js';
import type { SettlementConfig } from '../config.js';
import type { Database } from '../db/connect.js';
import { sumLedger } from '../db/queries/ledgerEntries.js';
import { depositAddressesOn, movesInFlight, refundsNotSent } from '../db/queries/reconciliationRows.js';
import type { Observer } from '../observability/observer.js';
import type { ReadinessCheck } from '../observability/readiness.js';
import type { AccountRole, Difference } from './reconciliationDifference.js';
import { recordFindings } from './reconciliationFindings.js';

export type { AccountRole, Difference } from './reconciliationDifference.js';

/**
 * How long money may be on its way before a difference stands: Ethereum's finality (~13 min) plus detection's and
 * the move executor's rounds, with room for a slow RPC. A difference older than this is no longer explained by timing.
 */
export const PENDING_MS = 30 * 60_000;

/** Balance reads at once per chain: a bound on the RPC load of a run over many deposit addresses. */
const READS_AT_ONCE = 8;

/** Whether a difference fails readiness (see the header): standing, and money missing. */
export function failsReadiness(d: Difference): boolean {
  return d.state === 'standing' && d.difference < 0n;
}

export interface AccountChecked {
  chain: string;
  asset: string;
  role: AccountRole;
}

export interface ReconciliationResult {
  at: number;
  /** The (chain, asset, role) triples compared, differing or not: every one gets a metric series. */
  checked: AccountChecked[];
  differences: Difference[];
  /** Chains whose balances could not be read: their previous differences are carried over, not forgotten. */
  failedChains: string[];
}

export interface ReconcileDeps {
  db: Database;
  chains: Chains;
  adapters: ChainAdapter[];
  settlement: Pick<SettlementConfig, 'treasury' | 'reconcileReadiness'>;
  /** Development may use the derived treasury key when no treasury is configured (docs/decisions.md §22). */
  development: boolean;
  now: () => number;
  logger: Logger;
  observer: Pick<Observer, 'reconciled'>;
}

export interface Reconciler {
  /** One comparison of every settlement account; its result is kept for readiness and answered. */
  run(): Promise<ReconciliationResult>;
  /** The last run's result, null before the first. */
  last(): ReconciliationResult | null;
  readiness: ReadinessCheck;
}

const keyOf = (d: Pick<Difference, 'chain' | 'asset' | 'role' | 'address'>) =>
  [d.chain, d.asset, d.role, d.address].join('\u0000');

/**
 * The last result lives in this process's memory: reconciliation only reads, so every process that serves /readyz
 * (the API processes, the ones with chains) runs it on its own timer and judges its own readiness from its own runs;
 * no table has to be kept in step between processes.
 */
export function createReconciler(deps: ReconcileDeps): Reconciler {
  let last: ReconciliationResult | null = null;
  let running: Promise<ReconciliationResult> | null = null;
  const reconciler: Reconciler = {
    last: () => last,
    run: () =>
      (running ??= reconcileOnce(deps, last)
        .then(async (result) => {
          last = result;
          report(deps, result);
          // A finding not written now is written by the next run (same balance, same key); the comparison stands.
          await recordFindings(deps, result.differences).catch((err: unknown) =>
            deps.logger.warn({ err }, 'reconciliation could not record its findings'),
          );
          return result;
        })
        .finally(() => (running = null))),
    readiness: {
      name: 'reconciliation',
      check: async () => {
        if (!deps.settlement.reconcileReadiness || last === null) return;
        const failing = last.differences.filter(failsReadiness);
        if (failing.length > 0)
          throw new Error(`${failing.length} reconciliation difference(s) stand since the run at ${last.at}`);
      },
    },
  };
  return reconciler;
}

function report(deps: ReconcileDeps, result: ReconciliationResult): void {
  for (const d of result.differences) {
    // Addresses are public; amounts are minor units of the asset. No key, no seed, nothing personal.
    deps.logger[failsReadiness(d) ? 'error' : 'warn'](
      {
        chain: d.chain,
        asset: d.asset,
        role: d.role,
        address: d.address,
        expected: d.expected.toString(),
        actual: d.actual.toString(),
        difference: d.difference.toString(),
        state: d.state,
        since: new Date(d.since).toISOString(),
      },
      'reconciliation difference',
    );
  }
  for (const chain of result.failedChains) deps.logger.warn({ chain }, 'reconciliation could not read the chain');
  deps.observer.reconciled?.(result);
}

interface Expectation {
  chain: string;
  asset: string;
  role: AccountRole;
  address: string;
  expected: bigint;
  /** Money may be moving into or out of the account: a difference is pending for a while. */
  moving: boolean;
}

async function reconcileOnce(
  deps: ReconcileDeps,
  previous: ReconciliationResult | null,
): Promise<ReconciliationResult> {
  const at = deps.now();
  // Moves before the ledger: a move that completes in between is then seen in flight (a pending difference at worst),
  // never as finished with its ledger rows unread (a false standing difference).
  const moving = await movesInFlight(deps.db.knex);
  const unsent = await refundsNotSent(deps.db.knex);
  const sums = await sumLedger(deps.db.knex, {
    mode: 'collected',
    kinds: [
      'received',
      'swept',
      'paid_out',
      'fee_paid',
      'refunded',
      'refund_released',
      'excess_refunded',
      'excess_released',
    ],
  });

  const checked: AccountChecked[] = [];
  const differences: Difference[] = [];
  const failedChains: string[] = [];
  const before = new Map((previous?.differences ?? []).map((d) => [keyOf(d), d]));

  for (const chain of allChains(deps.chains)) {
    const caip2 = chain.config.caip2;
    const port = forNamespaceOf(deps.adapters, caip2)?.settlement;
    if (!port) continue;
    const onChain = sums.filter((s) => s.chain === caip2);
    const assets = [
      ...new Set([
        ...(port.deposits?.assets(caip2) ?? chain.config.assets.map((a) => a.caip19)),
        ...onChain.map((s) => s.asset),
      ]),
    ];
    try {
      const expectations = await expectationsOf(deps, port, caip2, assets, onChain, moving, unsent);
      const actuals = await inBatches(expectations, (e) => port.balance(caip2, e.asset, e.address));
      const seen = new Set<string>();
      expectations.forEach((e, i) => {
        const key = `${e.asset}\u0000${e.role}`;
        if (!seen.has(key)) {
          seen.add(key);
          checked.push({ chain: caip2, asset: e.asset, role: e.role });
        }
        const actual = actuals[i]!;
        const off = e.role === 'treasury' ? actual < e.expected : actual !== e.expected;
        if (!off) return;
        const since = before.get(keyOf(e))?.since ?? at;
        const pendingKind = e.moving || (e.role === 'deposit' && actual > e.expected);
        differences.push({
          chain: caip2,
          asset: e.asset,
          role: e.role,
          address: e.address,
          expected: e.expected,
          actual,
          difference: actual - e.expected,
          state: pendingKind && at - since < PENDING_MS ? 'pending' : 'standing',
          since,
        });
      });
    } catch (err) {
      deps.logger.warn({ err, chain: caip2 }, 'reconciliation of a chain failed');
      failedChains.push(caip2);
      for (const d of previous?.differences ?? []) if (d.chain === caip2) differences.push(d);
      for (const c of previous?.checked ?? []) if (c.chain === caip2) checked.push(c);
    }
  }
  return { at, checked, differences, failedChains };
}

async function expectationsOf(
  deps: ReconcileDeps,
  port: SettlementPort,
  chain: string,
  assets: string[],
  sums: Awaited<ReturnType<typeof sumLedger>>,
  moving: Awaited<ReturnType<typeof movesInFlight>>,
  unsent: Awaited<ReturnType<typeof refundsNotSent>>,
): Promise<Expectation[]> {
  const total = (asset: string, kind: string, address?: string) =>
    sums
      .filter((s) => s.asset === asset && s.kind === kind && (address === undefined || s.address === address))
      .reduce((a, s) => a + s.amount, 0n);
  const movingOn = (asset: string) => moving.filter((m) => m.chain === chain && m.asset === asset);
  const out: Expectation[] = [];

  const deposits = await depositAddressesOn(deps.db.knex, chain);
  for (const address of deposits) {
    // The ledger's assets at this address and the assets a deposit may be paid in: a stray transfer shows too.
    const ledgerAssets = sums.filter((s) => s.address === address).map((s) => s.asset);
    for (const asset of new Set([...assets, ...ledgerAssets])) {
      out.push({
        chain,
        asset,
        role: 'deposit',
        address,
        expected: total(asset, 'received', address) - total(asset, 'swept', address),
        moving: movingOn(asset).some((m) => m.fromDeposit === address),
      });
    }
  }

  const collection = await port.keyAddress(chain, { role: 'collection' });
  for (const asset of assets) {
    const notSent = unsent.filter((r) => r.chain === chain && r.asset === asset).reduce((a, r) => a + r.amount, 0n);
    out.push({
      chain,
      asset,
      role: 'collection',
      address: collection,
      expected:
        total(asset, 'swept') -
        total(asset, 'paid_out') -
        total(asset, 'fee_paid') -
        total(asset, 'refunded') -
        total(asset, 'excess_refunded') +
        // A refund that will never be sent gave its reservation back: it never left the collection.
        total(asset, 'refund_released') +
        total(asset, 'excess_released') +
        notSent,
      moving: movingOn(asset).length > 0,
    });
  }

  const treasury = await treasuryOf(deps, port, chain);
  if (treasury !== null) {
    for (const asset of assets) {
      out.push({
        chain,
        asset,
        role: 'treasury',
        address: treasury,
        expected: total(asset, 'fee_paid'),
        moving: movingOn(asset).some((m) => m.paysTreasury),
      });
    }
  }
  return out;
}

/** The configured treasury; development's derived one when none is; null (not compared) otherwise. */
async function treasuryOf(deps: ReconcileDeps, port: SettlementPort, chain: string): Promise<string | null> {
  const configured = deps.settlement.treasury[chain];
  if (configured !== undefined) return configured;
  return deps.development ? port.keyAddress(chain, { role: 'devTreasury' }) : null;
}

async function inBatches<T, R>(items: T[], read: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += READS_AT_ONCE) {
    out.push(...(await Promise.all(items.slice(i, i + READS_AT_ONCE).map(read))));
  }
  return out;
}
