/**
 * The money invariants of issue 33 §2, checked after a scenario against the real database and the real chains
 * (docs/decisions.md §27.14). Each check reads what the gateway wrote and compares it with what the chain itself says,
 * read directly (never through a fault proxy), so a scenario's faults cannot hide a violation:
 *   succeededOnChain    each succeeded payment's transfers are on the canonical chain, successful, at the depth required
 *   transferPaysOnce    no transfer (EVM tx hash + log index, Solana signature + instruction) pays two payments
 *   ledgerEqualsChain   the ledger equals the on-chain balances of deposit, collection and treasury (reconciliation)
 *   moveSentOnce        every transfer out of an operator address is the one transaction of one sweep, payout or refund
 *   eventDelivered      every event for an endpoint at one of the scenario's receivers reached it at least once
 *   serving             every process named still answers /healthz
 * `checkInvariants` answers the violations (a chaos run counts them); `assertNoViolations` fails a test on any.
 */
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import type { Runtime } from '@paygate/server';
import { erc20Abi, getAddress, parseEventLogs, type Address, type Hash } from 'viem';
import type { Signature } from '@solana/kit';
import type { ChainAdapter } from '../../server/src/chains/adapter.js';
import { simulatedTxId } from '../../server/src/payments/paidToDeposit.js';
import type { Chains, EvmChain } from '../../server/src/chains/index.js';
import type { SolanaChain } from '../../server/src/chains/solana/client.js';
import type { Reconciler } from '../../server/src/settlement/reconciliation.js';
import type { Receiver } from './receiver.js';

export type InvariantName =
  'succeededOnChain' | 'transferPaysOnce' | 'ledgerEqualsChain' | 'moveSentOnce' | 'eventDelivered' | 'serving';

export interface Violation {
  invariant: InvariantName;
  detail: string;
}

export interface InvariantScope {
  knex: Knex;
  /** The chains as the truth: reached directly, not through the scenario's fault proxies. */
  chains: Chains;
  /** The settlement ports (keys of the collection, the deposits and the treasury). */
  adapters: ChainAdapter[];
  /** Reconciliation over the same database and chains; null where no chain offers collected settlement. */
  reconciler: Pick<Reconciler, 'run'> | null;
  /** The scenario's webhook receivers: events for endpoints at their URLs must have reached them. */
  receivers?: Pick<Receiver, 'url' | 'received'>[];
  /** Base URLs of the processes that must still serve once the faults end. */
  serving?: string[];
  /** Only these invariants (all by default). */
  only?: InvariantName[];
}

/** A runtime's scope: its database, settlement ports and reconciler, the chains it was given (or `chains`). */
export function scopeOf(
  runtime: Runtime,
  extra: Partial<Pick<InvariantScope, 'chains' | 'receivers' | 'serving'>> = {},
): InvariantScope {
  const chains = extra.chains ?? runtime.chains;
  if (!chains) throw new Error('the invariants need a runtime with chains');
  return {
    knex: runtime.db.knex,
    chains,
    adapters: runtime.checkout?.adapters ?? [],
    reconciler: runtime.reconciler,
    receivers: extra.receivers,
    serving: extra.serving,
  };
}

export async function checkInvariants(scope: InvariantScope): Promise<Violation[]> {
  const out: Violation[] = [];
  const add = (invariant: InvariantName) => (detail: string) => out.push({ invariant, detail });
  const wanted = (name: InvariantName) => !scope.only || scope.only.includes(name);
  const paid = await succeededPayments(scope.knex);
  if (wanted('succeededOnChain')) await succeededOnChain(scope, paid, add('succeededOnChain'));
  if (wanted('transferPaysOnce')) await transferPaysOnce(scope.knex, paid, add('transferPaysOnce'));
  if (wanted('ledgerEqualsChain')) await ledgerEqualsChain(scope, add('ledgerEqualsChain'));
  if (wanted('moveSentOnce')) await moveSentOnce(scope, add('moveSentOnce'));
  if (wanted('eventDelivered')) await eventDelivered(scope, add('eventDelivered'));
  if (wanted('serving')) await serving(scope, add('serving'));
  return out;
}

export function assertNoViolations(violations: Violation[]): void {
  assert.deepEqual(
    violations.map((v) => `${v.invariant}: ${v.detail}`),
    [],
    'the money invariants hold (test/helpers/invariants.ts)',
  );
}

type Report = (detail: string) => void;

interface PaidPayment {
  id: string;
  mode: string;
  chain: string | null;
  /** The success stage's transaction and the `received` ledger rows' transactions. */
  txIds: string[];
}

interface LedgerReceived {
  entry_key: string;
  payment_id: string;
  mode: string;
  chain_caip2: string;
  tx_id: string | null;
}

const parse = <T>(value: unknown): T | null =>
  value === null || value === undefined ? null : ((typeof value === 'string' ? JSON.parse(value) : value) as T);

async function receivedRows(knex: Knex): Promise<LedgerReceived[]> {
  return (await knex('ledger_entries')
    .where({ kind: 'received' })
    .select('entry_key', 'payment_id', 'mode', 'chain_caip2', 'tx_id')) as LedgerReceived[];
}

/** Succeeded payments that moved money on a chain (a test-mode simulation has no transaction to look for). */
async function succeededPayments(knex: Knex): Promise<PaidPayment[]> {
  const rows = (await knex('payments')
    .where({ status: 'succeeded' })
    .select('id', 'settlement_mode', 'processing', 'success')) as {
    id: string;
    settlement_mode: string;
    processing: unknown;
    success: unknown;
  }[];
  const received = await receivedRows(knex);
  return rows.flatMap((r) => {
    const processing = parse<{ chain_caip2?: string }>(r.processing);
    const success = parse<{ tx_id?: string | null }>(r.success);
    const chain = processing?.chain_caip2 ?? null;
    // A simulated success (test mode) names a transaction no chain has: nothing moved, nothing to find.
    if (chain === null || success?.tx_id === simulatedTxId(r.id)) return [];
    const txIds = new Set<string>();
    if (success?.tx_id) txIds.add(success.tx_id);
    for (const e of received) if (e.payment_id === r.id && e.tx_id) txIds.add(e.tx_id);
    return [{ id: r.id, mode: r.settlement_mode, chain, txIds: [...txIds] }];
  });
}

const evmOf = (chains: Chains, caip2: string) => chains.evm.find((c) => c.config.caip2 === caip2);
const solanaOf = (chains: Chains, caip2: string) => chains.solana.find((c) => c.config.caip2 === caip2);

async function succeededOnChain(scope: InvariantScope, paid: PaidPayment[], report: Report): Promise<void> {
  for (const p of paid) {
    const evm = evmOf(scope.chains, p.chain!);
    const solana = solanaOf(scope.chains, p.chain!);
    if (!evm && !solana) continue;
    if (p.txIds.length === 0) report(`succeeded payment ${p.id} names no transaction on ${p.chain}`);
    for (const tx of p.txIds) {
      const problem = evm ? await evmDepthProblem(evm, tx) : await solanaProblem(solana!, tx);
      if (problem) report(`succeeded payment ${p.id}: ${tx} on ${p.chain} ${problem}`);
    }
  }
}

async function evmDepthProblem(chain: EvmChain, tx: string): Promise<string | null> {
  const client = chain.clients.public;
  // Not receiptOf: the scenario has settled, and the question is whether the transaction is there now; a wait would
  // turn a missing one into a timeout instead of a counted violation.
  // eslint-disable-next-line no-restricted-syntax
  const receipt = await client.getTransactionReceipt({ hash: tx as Hash }).catch(() => null);
  if (!receipt) return 'is not on the canonical chain';
  if (receipt.status !== 'success') return 'reverted';
  const block = await client.getBlock({ blockNumber: receipt.blockNumber });
  if (block.hash !== receipt.blockHash) return 'is in a block no longer canonical';
  const depth = (await client.getBlockNumber({ cacheTime: 0 })) - receipt.blockNumber + 1n;
  if (depth < BigInt(chain.config.confirmations))
    return `is ${depth} deep, the chain requires ${chain.config.confirmations}`;
  return null;
}

async function solanaProblem(chain: SolanaChain, signature: string): Promise<string | null> {
  const { value } = await chain.rpc
    .getSignatureStatuses([signature as Signature], { searchTransactionHistory: true })
    .send();
  const status = value[0];
  if (!status) return 'is not on the chain';
  if (status.err) return 'failed';
  const reached = status.confirmationStatus;
  if (chain.config.commitment === 'finalized' ? reached !== 'finalized' : reached === 'processed')
    return `is only ${reached}, the chain requires ${chain.config.commitment}`;
  return null;
}

/**
 * A transfer's key: a collected deposit's ledger key carries the transfer's position (`received:<chain>:<tx>:<i>`); a
 * direct payment's transfer is its whole transaction, so a direct key collides with every transfer of that tx.
 */
async function transferPaysOnce(knex: Knex, paid: PaidPayment[], report: Report): Promise<void> {
  const byKey = new Map<string, Set<string>>();
  const note = (key: string, paymentId: string) => byKey.set(key, (byKey.get(key) ?? new Set()).add(paymentId));
  const directTx = new Map<string, Set<string>>();
  for (const p of paid)
    if (p.mode === 'direct')
      for (const tx of p.txIds)
        directTx.set(`${p.chain}:${tx}`, (directTx.get(`${p.chain}:${tx}`) ?? new Set()).add(p.id));
  for (const e of await receivedRows(knex)) {
    if (e.mode === 'collected') note(e.entry_key.slice('received:'.length), e.payment_id);
    else if (e.tx_id) {
      const key = `${e.chain_caip2}:${e.tx_id}`;
      directTx.set(key, (directTx.get(key) ?? new Set()).add(e.payment_id));
    }
  }
  for (const [key, payments] of directTx) {
    const collected = [...byKey].filter(([k]) => k.startsWith(`${key}:`)).flatMap(([, ids]) => [...ids]);
    const all = new Set([...payments, ...collected]);
    if (all.size > 1) report(`transfer ${key} pays ${all.size} payments: ${[...all].sort().join(', ')}`);
  }
  for (const [key, payments] of byKey)
    if (payments.size > 1) report(`transfer ${key} pays ${payments.size} payments: ${[...payments].sort().join(', ')}`);
}

/** Reconciliation at the end of a scenario: money has stopped moving, so any difference is one. */
async function ledgerEqualsChain(scope: InvariantScope, report: Report): Promise<void> {
  if (!scope.reconciler) return;
  const result = await scope.reconciler.run();
  for (const chain of result.failedChains) report(`the balances on ${chain} could not be read`);
  for (const d of result.differences)
    report(
      `${d.role} ${d.address} on ${d.chain} holds ${d.actual} of ${d.asset}, the ledger says ${d.expected}` +
        (d.role === 'deposit' ? await depositStory(scope, d.chain, d.address) : ''),
    );
}

/** What the database knows of a deposit address: its payment, the payment's claim and the transfers seen to it. */
async function depositStory(scope: InvariantScope, chain: string, address: string): Promise<string> {
  const knex = scope.knex;
  const owner = (await knex('deposit_addresses as d')
    .join('payments as p', 'p.id', 'd.payment_id')
    .leftJoin('payment_claims as c', 'c.payment_id', 'p.id')
    .where({ 'd.chain_caip2': chain, 'd.address': address })
    .first('p.id', 'p.status', 'c.kind', 'c.state', 'c.tx_id')) as
    { id: string; status: string; kind: string | null; state: string | null; tx_id: string | null } | undefined;
  const seen = (await knex('deposit_transfers')
    .where({ chain_caip2: chain, address })
    .select('tx_id', 'position', 'amount', 'state', 'block_number')) as {
    tx_id: string;
    position: number;
    amount: string;
    state: string;
    block_number: string | number | null;
  }[];
  const claim = owner?.kind ? `, claim ${owner.kind} ${owner.state} tx ${owner.tx_id ?? 'none'}` : ', no claim';
  const transfers = seen.map((t) => `${t.tx_id}:${t.position} ${t.amount} ${t.state} at ${t.block_number}`);
  const evm = scope.chains.evm.find((c) => c.config.caip2 === chain);
  const onChain = evm
    ? (
        await evm.clients.public.getLogs({
          event: erc20Abi.find((i) => i.type === 'event' && i.name === 'Transfer')!,
          args: { to: getAddress(address) },
          fromBlock: 0n,
        })
      ).map((l) => `${l.transactionHash}:${l.logIndex} ${l.args.value} at ${l.blockNumber}`)
    : [];
  return (
    ` (payment ${owner ? `${owner.id} ${owner.status}${claim}` : 'none'}; transfers seen: ` +
    `${transfers.length ? transfers.join(', ') : 'none'}; on chain: ${onChain.join(', ') || 'none'})`
  );
}

interface MoveTx {
  kind: string;
  id: string;
  state: string;
  tx_id: string | null;
  chain_caip2: string;
}

async function recordedMoves(knex: Knex): Promise<MoveTx[]> {
  const of = async (table: string, kind: string) =>
    ((await knex(table).select('id', 'state', 'tx_id', 'chain_caip2')) as Omit<MoveTx, 'kind'>[]).map((m) => ({
      ...m,
      kind,
    }));
  return [
    ...(await of('sweeps', 'sweep')),
    ...(await of('payouts', 'payout')),
    ...(await of('onchain_refunds', 'refund')),
  ];
}

/**
 * Every ERC-20 transfer out of an address the operator holds the key of (the collection, every deposit address) is
 * in the transaction a sweep, payout or refund records; one that is not is money moved twice (a resend that was not the
 * same authorization) or moved by nothing the ledger knows. And every final move's transaction is on the chain.
 */
async function moveSentOnce(scope: InvariantScope, report: Report): Promise<void> {
  const moves = await recordedMoves(scope.knex);
  for (const chain of scope.chains.evm) {
    const caip2 = chain.config.caip2;
    const port = scope.adapters.find((a) => a.namespace === 'eip155')?.settlement;
    if (!port) continue;
    const operator = [
      await port.keyAddress(caip2, { role: 'collection' }),
      ...((await scope.knex('deposit_addresses').where({ chain_caip2: caip2 }).pluck('address')) as string[]),
    ].map((a) => getAddress(a));
    const mine = moves.filter((m) => m.chain_caip2 === caip2);
    const recorded = new Set(mine.flatMap((m) => (m.tx_id ? [m.tx_id.toLowerCase()] : [])));
    const tokens = chain.config.assets.flatMap((a) => (a.address ? [a.address] : []));
    for (const tx of await transfersOut(chain, tokens, operator))
      if (!recorded.has(tx.hash.toLowerCase()))
        report(`${tx.from} sent ${tx.value} on ${caip2} in ${tx.hash}, which no sweep, payout or refund records`);
    for (const m of mine.filter((x) => x.state === 'final')) {
      const problem = m.tx_id ? await evmDepthProblem(chain, m.tx_id) : 'names no transaction';
      if (problem) report(`final ${m.kind} ${m.id}: ${m.tx_id ?? ''} ${problem}`);
    }
  }
  for (const chain of scope.chains.solana) {
    for (const m of moves.filter((x) => x.chain_caip2 === chain.config.caip2 && x.state === 'final')) {
      const problem = m.tx_id ? await solanaProblem(chain, m.tx_id) : 'names no transaction';
      if (problem) report(`final ${m.kind} ${m.id}: ${m.tx_id ?? ''} ${problem}`);
    }
  }
}

async function transfersOut(
  chain: EvmChain,
  tokens: Address[],
  from: Address[],
): Promise<{ hash: Hash; from: Address; value: bigint }[]> {
  const out: { hash: Hash; from: Address; value: bigint }[] = [];
  // Topic lists stay short: a chaos run has hundreds of deposit addresses.
  for (let i = 0; i < from.length; i += 100) {
    const logs = await chain.clients.public.getLogs({
      address: tokens,
      event: erc20Abi.find((e) => e.type === 'event' && e.name === 'Transfer')!,
      args: { from: from.slice(i, i + 100) },
      fromBlock: 0n,
      toBlock: 'latest',
    });
    for (const log of parseEventLogs({ abi: erc20Abi, logs, eventName: 'Transfer' }))
      out.push({ hash: log.transactionHash, from: log.args.from, value: log.args.value });
  }
  return out;
}

async function eventDelivered(scope: InvariantScope, report: Report): Promise<void> {
  for (const receiver of scope.receivers ?? []) {
    const got = new Set(receiver.received.map((r) => String(r.headers['webhook-id'] ?? '')));
    const endpoints = (await scope
      .knex('webhook_endpoints')
      .select('merchant_id', 'mode', 'url', 'event_types', 'created_at', 'deleted_at')) as {
      merchant_id: string;
      mode: string;
      url: string;
      event_types: unknown;
      created_at: string | number;
      deleted_at: unknown;
    }[];
    for (const e of endpoints.filter((x) => x.url.startsWith(receiver.url) && x.deleted_at === null)) {
      const types = parse<string[]>(e.event_types) ?? [];
      const events = (await scope
        .knex('events')
        .where({ merchant_id: e.merchant_id, live: e.mode === 'live' })
        .where('created_at', '>=', Number(e.created_at))
        .select('id', 'type', 'payment_id')) as { id: string; type: string; payment_id: string }[];
      for (const ev of events)
        if (types.includes(ev.type) && !got.has(ev.id))
          report(`event ${ev.id} (${ev.type} of ${ev.payment_id}) never reached ${receiver.url}`);
    }
  }
}

async function serving(scope: InvariantScope, report: Report): Promise<void> {
  for (const url of scope.serving ?? []) {
    const status = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) })
      .then((r) => r.status)
      .catch((err: unknown) => String(err));
    if (status !== 200) report(`${url} does not serve: /healthz answered ${status}`);
  }
}
