/**
 * The dashboard's CSV exports of settlement (docs/decisions.md §22.9): the ledger, one row per entry, and the payouts,
 * one row per payment a payout covered. Both read in keyset pages, so an export holds one page in memory at a time
 * and the caller streams each page before reading the next; the fields go through the payments export's RFC 4180
 * writer and its formula guard.
 */
import type { Chains } from '../chains/index.js';
import { allChains } from '../chains/index.js';
import { decimalOf } from '../currencies.js';
import { ledgerPage } from '../db/queries/ledgerEntries.js';
import { listPayoutRows, payoutItemsOf, type PayoutItem, type PayoutRow } from '../db/queries/payoutRows.js';
import { csvLine, EXPORT_PAGE_SIZE } from '../payments/paymentExport.js';
import { iso } from '../payments/snapshot.js';
import type { Knex } from 'knex';

export const LEDGER_COLUMNS = [
  'created_at',
  'kind',
  'settlement_mode',
  'payment_id',
  'payout_id',
  'refund_id',
  'chain',
  'asset',
  'amount_value',
  'amount',
  'symbol',
  'address',
  'tx_id',
  'entry_key',
] as const;

export const PAYOUT_COLUMNS = [
  'payout_id',
  'state',
  'created_at',
  'sent_at',
  'final_at',
  'chain',
  'asset',
  'symbol',
  'destination',
  'tx_id',
  'payment_id',
  'gross_value',
  'fee_value',
  'net_value',
  'gross',
  'fee',
  'net',
] as const;

export interface AssetInfo {
  decimals: number;
  symbol: string;
}

/** What the export knows of an asset (CAIP-19, without `caip19/`); null when this server has no such asset configured. */
export type AssetLookup = (asset: string) => AssetInfo | null;

/** The assets of the configured chains; an asset of a chain the server no longer runs is unknown (no decimals). */
export function assetLookup(chains: Chains | null): AssetLookup {
  const known = new Map<string, AssetInfo>();
  for (const chain of chains ? allChains(chains) : []) {
    for (const a of chain.config.assets) known.set(a.caip19, { decimals: a.decimals, symbol: a.symbol });
  }
  return (asset) => known.get(asset) ?? null;
}

export interface ExportScope {
  merchantId: string;
  live: boolean;
}

/** The window of the export, in Unix seconds as the contract takes it. */
export interface ExportWindow {
  createdGte?: number;
  createdLt?: number;
}

const secondsToMs = (s: number | undefined) => (s === undefined ? undefined : Math.min(s, 8.64e12) * 1000);
const isoOrEmpty = (ms: number | null) => (ms === null ? '' : iso(ms));

/** The ledger CSV, page by page: the header row, then the entries of the scope, oldest first. */
export async function* exportLedgerCsv(
  db: Knex,
  scope: ExportScope,
  window: ExportWindow,
  assets: AssetLookup,
  pageSize = EXPORT_PAGE_SIZE,
): AsyncGenerator<string> {
  yield csvLine(LEDGER_COLUMNS);
  let afterId: number | undefined;
  for (;;) {
    const rows = await ledgerPage(db, {
      ...scope,
      afterId,
      createdGte: secondsToMs(window.createdGte),
      createdLt: secondsToMs(window.createdLt),
      limit: pageSize,
    });
    if (rows.length === 0) return;
    yield rows
      .map((e) => {
        const info = assets(e.asset);
        return csvLine([
          iso(e.createdAt),
          e.kind,
          e.mode,
          e.paymentId ?? '',
          e.payoutId ?? '',
          e.refundId ?? '',
          e.chain,
          e.asset,
          e.amount.toString(),
          info ? decimalOf(e.amount, info.decimals) : '',
          info?.symbol ?? '',
          e.address ?? '',
          e.txId ?? '',
          e.entryKey,
        ]);
      })
      .join('');
    if (rows.length < pageSize) return;
    afterId = rows[rows.length - 1]!.id;
  }
}

function payoutLines(p: PayoutRow, items: PayoutItem[], info: AssetInfo | null): string {
  const decimal = (v: bigint) => (info ? decimalOf(v, info.decimals) : '');
  const head = [
    p.id,
    p.state,
    iso(p.createdAt),
    isoOrEmpty(p.sentAt),
    isoOrEmpty(p.finalAt),
    p.chain,
    p.asset,
    info?.symbol ?? '',
    p.destination,
    p.txId ?? '',
  ];
  // A payout with no payment left (a failed one gave them back) still gets its row: no payout is missing.
  if (items.length === 0) return csvLine([...head, '', '', '', '', '', '', '']);
  return items
    .map((i) =>
      csvLine([
        ...head,
        i.paymentId,
        i.gross.toString(),
        i.fee.toString(),
        i.net.toString(),
        decimal(i.gross),
        decimal(i.fee),
        decimal(i.net),
      ]),
    )
    .join('');
}

/** The payouts CSV, page by page: the header row, then one row per payout item of the scope, newest payout first. */
export async function* exportPayoutsCsv(
  db: Knex,
  scope: ExportScope,
  window: ExportWindow,
  assets: AssetLookup,
  pageSize = EXPORT_PAGE_SIZE,
): AsyncGenerator<string> {
  yield csvLine(PAYOUT_COLUMNS);
  let after: { createdAt: number; id: string } | undefined;
  for (;;) {
    const rows = await listPayoutRows(db, {
      ...scope,
      limit: pageSize,
      startingAfter: after,
      createdGte: secondsToMs(window.createdGte),
      createdLt: secondsToMs(window.createdLt),
    });
    if (rows.length === 0) return;
    const items = await payoutItemsOf(
      db,
      rows.map((r) => r.id),
    );
    const byPayout = new Map<string, PayoutItem[]>();
    for (const i of items) {
      const list = byPayout.get(i.payoutId);
      if (list) list.push(i);
      else byPayout.set(i.payoutId, [i]);
    }
    yield rows.map((r) => payoutLines(r, byPayout.get(r.id) ?? [], assets(r.asset))).join('');
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}
