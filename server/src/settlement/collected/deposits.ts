/**
 * Deposit addresses (docs/decisions.md §22.2, §22.14): in collected settlement every payment gets one derivation index
 * (`deposit_accounts`) and, from it, its own address on every chain of its mode that takes deposits and where its
 * merchant has a settlement (payout) address: money must never arrive where no payout can send it on. A buyer pays
 * that address, from a wallet's option or by a plain transfer from anywhere, and detection credits the payment by the
 * address alone. Whether a payment is collected is the payment's own mode (payments.settlement_mode, read by
 * settlement/modes.ts), never the merchant's current one.
 */
import type { SettlementPort } from '../../chains/adapter.js';
import { forNamespaceOf } from '../../chains/adapters.js';
import { allChains, type ConfiguredAsset } from '../../chains/index.js';
import { currencyOfUnit } from '../../currencies.js';
import { findMerchant, type MerchantRow } from '../../db/queries/accounts.js';
import { allocateDerivationIndex, insertDepositAddress, receivedByAsset } from '../../db/queries/depositAccounts.js';
import { advanceScanCursor, readScanCursor } from '../../db/queries/scanCursors.js';
import type { PaymentRow } from '../../db/queries/payments.js';
import type { components } from '../../generated/gateway.js';
import type { DepositOptionsResponse, OptionRecipients, SettlementModeDeps } from '../mode.js';

type DepositOption = components['schemas']['DepositOption'];
type Amount = components['schemas']['Amount'];
type UnavailableReason = NonNullable<DepositOptionsResponse['unavailableReason']>;

/** What deposits need of the runtime's checkout: what every mode may use (checkout/context.ts `Checkout` has it). */
export type DepositDeps = SettlementModeDeps;

/**
 * Whether a chain whose namespace has this settlement port takes deposits: all three of `deposits`, `scanner` and
 * `mover`, since a deposit nobody detects or sweeps must not be offered.
 */
export function takesDeposits(port: SettlementPort | undefined): port is SettlementPort & {
  deposits: NonNullable<SettlementPort['deposits']>;
} {
  return !!port?.deposits && !!port.scanner && !!port.mover;
}

export interface DepositAddress {
  chain: string;
  address: string;
}

interface DepositChain {
  caip2: string;
  assets: ConfiguredAsset[];
  port: SettlementPort & { deposits: NonNullable<SettlementPort['deposits']> };
}

/**
 * Whether a payout can reach the merchant on this chain: it has a settlement address there. The one rule of where
 * collected money may arrive: deposit addresses are offered (`depositChains`) and deposits credited
 * (detection.ts) only where it holds; anything else is an `unroutable_deposit` finding.
 */
export function paysOutOn(merchant: Pick<MerchantRow, 'settlement_addresses'> | null, chain: string): boolean {
  return !!merchant?.settlement_addresses[chain];
}

/** The chains of a mode (live or test) that take deposits, in the configuration's order. */
function chainsTakingDeposits(deps: Pick<DepositDeps, 'chains' | 'adapters'>, live: boolean): DepositChain[] {
  const mode = live ? 'live' : 'test';
  const found: DepositChain[] = [];
  for (const chain of deps.chains ? allChains(deps.chains) : []) {
    if (chain.config.mode !== mode) continue;
    const port = forNamespaceOf(deps.adapters, chain.config.caip2)?.settlement;
    if (takesDeposits(port)) found.push({ caip2: chain.config.caip2, assets: chain.config.assets, port });
  }
  return found;
}

/**
 * The chains a payment may be paid on by deposit: of its mode, taking deposits, and where its merchant has a
 * settlement address, in the configuration's order.
 */
export function depositChains(
  deps: Pick<DepositDeps, 'chains' | 'adapters'>,
  payment: Pick<PaymentRow, 'live'>,
  merchant: Pick<MerchantRow, 'settlement_addresses'> | null,
): DepositChain[] {
  return chainsTakingDeposits(deps, payment.live).filter((c) => paysOutOn(merchant, c.caip2));
}

async function merchantOf(deps: Pick<DepositDeps, 'db'>, payment: PaymentRow): Promise<MerchantRow> {
  const merchant = await findMerchant(deps.db.knex, payment.merchant_id);
  if (!merchant) throw new Error(`payment ${payment.id} names merchant ${payment.merchant_id}, which does not exist`);
  return merchant;
}

/**
 * The payment's deposit address on every chain it may be paid on by deposit (`depositChains`). The derivation index
 * is allocated once (insert-or-read: concurrent callers get the same one) and each address is recorded
 * (`deposit_addresses`) before it is shown to anyone, so detection knows every address a buyer may have been given.
 * The address answered is always the stored one: if the derived one differs (the deposit seed changed under a running
 * database, which the start refuses: settlement/seedGuard.ts), a new address would be one nothing watches. No such
 * chain: nothing is allocated.
 */
export async function depositAddressesFor(
  deps: DepositDeps,
  payment: PaymentRow,
  known?: MerchantRow,
): Promise<DepositAddress[]> {
  const chains = depositChains(deps, payment, known ?? (await merchantOf(deps, payment)));
  if (chains.length === 0) return [];
  const now = deps.now();
  const index = await allocateDerivationIndex(deps.db.knex, payment.id, now);
  const addresses: DepositAddress[] = [];
  for (const chain of chains) {
    await startScanning(deps, chain, now);
    const derived = await chain.port.keyAddress(chain.caip2, { role: 'deposit', index });
    const address = await insertDepositAddress(deps.db.knex, {
      chain: chain.caip2,
      address: derived,
      paymentId: payment.id,
      derivationIndex: index,
      createdAt: now,
    });
    if (address !== derived) {
      deps.logger.error(
        { paymentId: payment.id, chain: chain.caip2, stored: address, derived },
        'deposit address derived now differs from the one stored: the deposit seed changed; answering the stored one',
      );
    }
    addresses.push({ chain: chain.caip2, address });
  }
  return addresses;
}

/**
 * Starts the chain's deposit scan at its head before its first address is given out (docs/decisions.md §27.27): a
 * scan without a cursor begins at the head of the moment it runs, so a deposit mined before the chain's first scan
 * (a worker down, a scan job slow or failing on the RPC) would never be seen. Once a cursor is stored, one read.
 */
async function startScanning(deps: DepositDeps, chain: DepositChain, now: number): Promise<void> {
  const scanner = chain.port.scanner;
  if (!scanner?.cursorNow || (await readScanCursor(deps.db.knex, chain.caip2)) !== null) return;
  // Insert-if-absent: a cursor a scan or another caller stored first stays; it too was read before this address was
  // shown to anyone, so no transfer to it lies below it.
  await advanceScanCursor(deps.db.knex, chain.caip2, null, await scanner.cursorNow(chain.caip2), now);
}

/**
 * What a collected-mode payment's wallet options pay: the deposit address as the recipient on each chain (the
 * `settlement` map `adapter.holdings` takes) and only the assets a deposit may hold (`deposits.assets`).
 */
export async function collectedRecipients(
  deps: DepositDeps,
  payment: PaymentRow,
  merchant: MerchantRow,
): Promise<OptionRecipients> {
  const chains = depositChains(deps, payment, merchant);
  const addresses = await depositAddressesFor(deps, payment, merchant);
  return {
    settlement: Object.fromEntries(addresses.map((a) => [a.chain, a.address])),
    assets: new Set(chains.flatMap((c) => c.port.deposits.assets(c.caip2))),
  };
}

function amountOf(asset: ConfiguredAsset, value: bigint): Amount {
  return {
    unit: `caip19/${asset.caip19}`,
    value: value.toString(),
    display: {
      assetSymbol: asset.symbol,
      assetName: asset.name,
      decimals: asset.decimals,
      iconUrl: asset.iconUrl,
      networkIconUrl: asset.networkIconUrl,
      networkName: asset.networkName,
    },
  };
}

/**
 * The deposit options of a payable collected-mode payment (the caller checked it is payable, and settlement/modes.ts
 * that it is collected): one per chain and
 * deposit asset pegged to the payment's currency. Only pegs are offered, so an entry's amount is the payment's
 * amount at 1:1 (rounded up to the token's decimals by pricing), involves no rate and never expires: a transfer
 * counts at the amount it was shown whenever it lands before the payment's `expiresAt`. What was received is the sum
 * of the transfers detection saw in that asset and no reorg removed; the URI asks for what is left.
 */
export async function listDepositOptions(deps: DepositDeps, payment: PaymentRow): Promise<DepositOptionsResponse> {
  const merchant = await merchantOf(deps, payment);
  const none = (reason: UnavailableReason): DepositOptionsResponse => ({ deposits: [], unavailableReason: reason });
  if (chainsTakingDeposits(deps, payment.live).length === 0) return none('no_deposit_network');
  const routable = depositChains(deps, payment, merchant);
  if (routable.length === 0) return none('no_settlement_address');
  const currency = currencyOfUnit(payment.amount_unit);
  if (!currency) return none('no_pegged_asset');
  const chains = new Map(routable.map((c) => [c.caip2, c]));
  const addresses = await depositAddressesFor(deps, payment, merchant);
  const received = await receivedByAsset(deps.db.knex, payment.id);
  const now = deps.now();
  const deposits: DepositOption[] = [];
  for (const { chain: caip2, address } of addresses) {
    const chain = chains.get(caip2)!;
    const depositable = new Set(chain.port.deposits.assets(caip2));
    for (const asset of chain.assets) {
      if (!depositable.has(asset.caip19) || asset.peg !== currency.code) continue;
      const quote = await deps.pricing.quote(
        { currency: currency.code, digits: currency.digits, minor: BigInt(payment.amount_value) },
        { ...asset, chainCaip2: caip2 },
        now,
      );
      if (!quote || quote.source !== 'peg' || quote.amount <= 0n) continue;
      const got = received.get(asset.caip19) ?? 0n;
      const remaining = got >= quote.amount ? 0n : quote.amount - got;
      deposits.push({
        chain: caip2,
        address,
        amount: amountOf(asset, quote.amount),
        received: amountOf(asset, got),
        remaining: amountOf(asset, remaining),
        uri: chain.port.deposits.paymentUri({
          chain: caip2,
          asset: asset.caip19,
          address,
          amount: remaining,
          label: merchant.name,
        }),
        expiresAt: null,
      });
    }
  }
  return deposits.length > 0 ? { deposits, unavailableReason: null } : none('no_pegged_asset');
}
