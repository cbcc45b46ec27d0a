/**
 * Collected-mode state for the moves tests, written straight through the foundation (tables, ledger, keys) as the
 * deposit and detection parts will write it: a succeeded payment with its deposit address, TUSD really sent there on
 * the run's anvil, its final deposit transfer and its ledger rows (received, fee, payable).
 */
import { randomBytes } from 'node:crypto';
import { getAddress, type Address, type Hex } from 'viem';
import { erc20Abi } from 'viem';
import { pino } from 'pino';
import { createRuntime, type Database, type Runtime } from '@paygate/server';
import { createMerchant, createPartner } from '../../server/src/accounts/index.js';
import type { LocalEvmChain } from '../../server/src/chains/local.js';
import type { Checkout } from '../../server/src/checkout/context.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { insertLedgerEntries } from '../../server/src/settlement/ledger.js';
import { newId } from '../../server/src/ids.js';
import { sharedChains } from '../helpers/chain.js';
import type { Chains } from '../../server/src/chains/index.js';
import { testConfig } from '../helpers/config.js';
import { driveJobsUntil, receiptOf } from '../helpers/wait.js';
import { testClock, type TestClock } from '../helpers/runtime.js';
import type { MoveDeps } from '../../server/src/settlement/moves.js';

const MOVE_RECHECK_MS = 50;

export interface CollectedHarness {
  runtime: Runtime;
  checkout: Checkout;
  clock: TestClock;
  local: LocalEvmChain;
  chain: string;
  tusd: string;
  merchantId: string;
  /** The merchant's payout address on the local chain (fresh: its balance starts at 0). */
  payoutAddress: Address;
  balance(address: string): Promise<bigint>;
  /** Runs the due jobs. */
  drain(): Promise<number>;
  /** Runs the due jobs, moving the clock by the moves' recheck delay, until `done` answers a value. */
  until<T>(what: string, done: () => Promise<T | null | undefined | false>): Promise<T>;
  close(): Promise<void>;
}

export async function startCollectedHarness(
  db: Database,
  config: Record<string, string> = {},
  /** The chains to serve, when not the shared ones as they are (a test puts fault proxies in front of anvil). */
  served?: Chains,
): Promise<CollectedHarness> {
  const chains = served ?? (await sharedChains());
  const local = chains.local!.evm;
  const clock = testClock();
  const runtime = await createRuntime({
    config: testConfig(config),
    db,
    logger: pino({ level: 'silent' }),
    now: clock.now,
    chains,
    migrate: false,
  });
  // A recheck every 50 ms of the test clock instead of the mover's 2 s: `until` moves the clock by that much a round.
  Object.assign(runtime.checkout!, { moveRecheckMs: MOVE_RECHECK_MS } satisfies Partial<MoveDeps>);
  const chain = local.config.caip2;
  const payoutAddress = getAddress(`0x${randomBytes(20).toString('hex')}`);
  const partner = await createPartner(runtime, { name: 'Collected partner' });
  const merchant = await createMerchant(runtime, {
    partnerId: partner.id,
    name: 'Collected merchant',
    feeConfig: null,
    settlementAddresses: { [chain]: payoutAddress },
  });
  await db.knex('merchants').where({ id: merchant.id }).update({ settlement_mode: 'collected' });
  const tusd = `${chain}/erc20:${local.testUsd}`;
  return {
    runtime,
    checkout: runtime.checkout!,
    clock,
    local,
    chain,
    tusd,
    merchantId: merchant.id,
    payoutAddress,
    balance: (address) =>
      local.clients.public.readContract({
        address: local.testUsd,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [getAddress(address)],
      }),
    drain: () => runtime.jobs.drain(),
    until: (what, done) =>
      driveJobsUntil(what, { drain: () => runtime.jobs.drain(), clock }, done, { stepMs: MOVE_RECHECK_MS }),
    close: () => runtime.close(),
  };
}

export interface PaidDeposit {
  paymentId: string;
  address: Address;
  derivationIndex: number;
  txId: Hex;
  amount: bigint;
  fee: bigint;
  payable: bigint;
}

/** What `refundPayment` and `claimRefund` take: the harness's checkout with the runtime's secrets. */
export function refundDeps(h: CollectedHarness) {
  return {
    ...h.checkout,
    config: h.runtime.config,
    secretBox: h.runtime.secretBox,
    keyPurges: h.runtime.keyPurges,
  };
}

/**
 * A live collected payment of `amount` TUSD minor units with `fee`, succeeded: its deposit address (derived from the
 * runtime's seed) received the amount on chain, and the transfer is final in `deposit_transfers` and the ledger.
 */
export async function paidDeposit(h: CollectedHarness, amount: bigint, fee: bigint): Promise<PaidDeposit> {
  const knex = h.runtime.db.knex;
  const now = h.clock.now();
  const payment = await createPayment(h.runtime, {
    merchantId: h.merchantId,
    live: true,
    referenceId: `order-${randomBytes(4).toString('hex')}`,
    amount: { unit: 'iso4217/USD', value: '100' },
    expiresAt: now + 3_600_000,
    successUrl: null,
    errorUrl: null,
  });
  const [account] = (await knex('deposit_accounts')
    .insert({ payment_id: payment.id, created_at: now })
    .returning('derivation_index')) as ({ derivation_index: number } | number)[];
  const derivationIndex = typeof account === 'object' ? account.derivation_index : account!;
  const settlement = h.checkout.adapters.find((a) => a.namespace === 'eip155')!.settlement!;
  const address = getAddress(await settlement.keyAddress(h.chain, { role: 'deposit', index: derivationIndex }));
  await knex('deposit_addresses').insert({
    chain_caip2: h.chain,
    address,
    payment_id: payment.id,
    derivation_index: derivationIndex,
    created_at: now,
  });
  // A plain transfer from a wallet that never saw Paygate: the faucet's mint lands at the deposit.
  const txId = await h.local.fund.mintTestUsd(address, amount);
  const receipt = await receiptOf(h.local.clients.public, txId);
  const payable = amount - fee;
  const unit = `caip19/${h.tusd}`;
  await knex('payments')
    .where({ id: payment.id })
    .update({
      status: 'succeeded',
      state_version: 2,
      processing: JSON.stringify({
        processing_at: new Date(now).toISOString(),
        option_amount: { unit, value: amount.toString() },
        fee: null,
        settlement_amount: { unit, value: payable.toString() },
        buyer_caip10: `${h.chain}:${h.local.faucet.account.address}`,
        chain_caip2: h.chain,
      }),
      success: JSON.stringify({ succeeded_at: new Date(now).toISOString(), tx_id: txId }),
    });
  const position = receipt.logs.findIndex((l) => getAddress(l.address) === h.local.testUsd);
  await knex('deposit_transfers').insert({
    id: newId.depositTransfer(),
    chain_caip2: h.chain,
    asset_caip19: h.tusd,
    address,
    payment_id: payment.id,
    tx_id: txId,
    position: receipt.logs[position]!.logIndex,
    from_address: null,
    amount: amount.toString(),
    block_number: receipt.blockNumber.toString(),
    block_hash: receipt.blockHash,
    block_time: null,
    state: 'final',
    detected_at: now,
  });
  const common = {
    merchantId: h.merchantId,
    live: true,
    mode: 'collected' as const,
    chain: h.chain,
    asset: h.tusd,
    paymentId: payment.id,
    createdAt: now,
  };
  await insertLedgerEntries(knex, [
    {
      ...common,
      entryKey: `received:${h.chain}:${txId}:${receipt.logs[position]!.logIndex}`,
      kind: 'received',
      amount,
      address,
      txId,
    },
    ...(fee > 0n ? [{ ...common, entryKey: `fee:${payment.id}`, kind: 'fee' as const, amount: fee, address }] : []),
    { ...common, entryKey: `payable:${payment.id}`, kind: 'payable', amount: payable, address },
  ]);
  return { paymentId: payment.id, address, derivationIndex, txId, amount, fee, payable };
}
