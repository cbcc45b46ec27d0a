/**
 * Detection tests on the run's shared anvil: a checkout harness whose merchant is in collected mode, deposit addresses
 * given to payments through the tables (the deposit allocation is another module's), plain ERC-20 transfers from
 * fresh buyers, and the scan called directly.
 */
import { erc20Abi, getAddress, type Address, type Hex } from 'viem';
import type { DepositScan } from '../../server/src/chains/adapter.js';
import type { Chains } from '../../server/src/chains/index.js';
import type { DiscrepancyRow } from '../../server/src/db/queries/discrepancies.js';
import { listDiscrepancies } from '../../server/src/db/queries/discrepancies.js';
import { findPayment, type PaymentRow } from '../../server/src/db/queries/payments.js';
import { listLedgerEntries, type LedgerEntry } from '../../server/src/settlement/ledger.js';
import { scanDeposits, type ScanReport } from '../../server/src/settlement/collected/detection.js';
import { LOCAL, startCheckoutHarness, type Buyer, type CheckoutHarness } from '../gateway/checkout.js';
import type { GatewayHarnessOptions } from '../gateway/harness.js';
import { receiptOf } from '../helpers/wait.js';

/** 0.30 USD + 2.9 %: on 12.50 USD in TUSD (6 decimals), 300,000 + 362,500 = 662,500 minor units. */
export const FEE = {
  kind: 'base_plus_percent',
  base: { unit: 'iso4217/USD', value: '30' },
  percent: { numerator: '29', denominator: '1000' },
};
/** The harness's default payment: 12.50 USD, in TUSD minor units. */
export const ASKED = 12_500_000n;
export const FEE_TOTAL = 662_500n;

export interface Mined {
  hash: Hex;
  blockNumber: bigint;
  logIndex: number;
}

export interface DetectionHarness extends CheckoutHarness {
  /** Gives the payment its deposit address on the local chain, as the deposit allocation would. */
  depositFor(paymentId: string): Promise<Address>;
  /** A plain `transfer` of TUSD from the buyer, as an exchange sends it; resolves once mined. */
  pay(buyer: Buyer, to: Address, amount: bigint): Promise<Mined>;
  /** Sends the transfer without waiting for it to be mined. */
  send(buyer: Buyer, to: Address, amount: bigint): Promise<Hex>;
  mined(hash: Hex): Promise<Mined>;
  /** Forgets the chain's cursor and scans once, so detection starts at the chain's head now. */
  startAtHead(): Promise<void>;
  scan(scanner?: DepositScan): Promise<ScanReport>;
  payment(paymentId: string): Promise<PaymentRow>;
  ledger(paymentId: string): Promise<LedgerEntry[]>;
  discrepancies(paymentId: string): Promise<DiscrepancyRow[]>;
  transfers(paymentId: string): Promise<{ tx_id: string; state: string; amount: string; position: number }[]>;
}

export async function startDetectionHarness(
  options: GatewayHarnessOptions & { chains?: Chains } = {},
): Promise<DetectionHarness> {
  const h = await startCheckoutHarness({ ...options, merchant: { feeConfig: FEE, ...options.merchant } });
  const knex = h.runtime.db.knex;
  await knex('merchants').where({ id: h.account.merchantId }).update({ settlement_mode: 'collected' });
  const checkout = h.runtime.checkout!;
  const settlement = checkout.adapters.find((a) => a.isChainId(LOCAL))!.settlement!;
  const send = (buyer: Buyer, to: Address, amount: bigint): Promise<Hex> =>
    buyer.wallet.writeContract({
      account: buyer.account,
      address: h.local.testUsd,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [to, amount],
      // Fixed, so a transfer sent while automine is off needs no estimate against a block not yet mined.
      gas: 100_000n,
    });
  const mined = async (hash: Hex): Promise<Mined> => {
    const receipt = await receiptOf(h.local.clients.public, hash);
    return { hash, blockNumber: receipt.blockNumber, logIndex: receipt.logs[0]!.logIndex };
  };
  return {
    ...h,
    async depositFor(paymentId) {
      const [inserted] = (await knex('deposit_accounts')
        .insert({ payment_id: paymentId, created_at: h.clock.now() })
        .returning('derivation_index')) as ({ derivation_index: number } | number)[];
      const index = typeof inserted === 'number' ? inserted : inserted!.derivation_index;
      const address = getAddress(await settlement.keyAddress(LOCAL, { role: 'deposit', index }));
      await knex('deposit_addresses').insert({
        chain_caip2: LOCAL,
        address,
        payment_id: paymentId,
        derivation_index: index,
        created_at: h.clock.now(),
      });
      return address;
    },
    pay: async (buyer, to, amount) => mined(await send(buyer, to, amount)),
    send,
    mined,
    async startAtHead() {
      await knex('scan_cursors').where({ chain_caip2: LOCAL }).delete();
      await scanDeposits(checkout, LOCAL);
    },
    scan: (scanner) => scanDeposits(checkout, LOCAL, { scanner }),
    payment: async (id) => (await findPayment(knex, id))!,
    ledger: (paymentId) => listLedgerEntries(knex, { paymentId }),
    discrepancies: async (paymentId) =>
      (await listDiscrepancies(knex, { paymentId, limit: 100 })).sort((a, b) =>
        a.receivedValue.localeCompare(b.receivedValue),
      ),
    transfers: (paymentId) =>
      knex('deposit_transfers')
        .where({ payment_id: paymentId })
        .orderBy(['block_number', 'position'])
        .select('tx_id', 'state', 'amount', 'position'),
  };
}

/** The ledger as (kind, key, amount) triples, in the order written. */
export function ledgerOf(entries: LedgerEntry[]): [string, string, bigint][] {
  return entries.map((e) => [e.kind, e.entryKey, e.amount]);
}
