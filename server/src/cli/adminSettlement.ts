/**
 * `paygate admin` commands of settlement (docs/decisions.md §22.1): a merchant's settlement mode, the fee balance of
 * direct settlement and its invoicing, and a fresh deposit seed.
 */
import { parseArgs } from 'node:util';
import { updateMerchantSettings } from '../accounts/merchants.js';
import { isSettlementMode } from '../accounts/settlementMode.js';
import { withDevelopmentSecrets, type Config } from '../config.js';
import { ApiError } from '../errors.js';
import { findMerchant } from '../db/queries/accounts.js';
import { newMnemonic } from '../settlement/seed.js';
import { acceptDepositSeed } from '../settlement/seedGuard.js';
import { INVOICE_ID, invoiceFees, listFeeBalances } from '../settlement/feeBalance.js';
import { recordAudit } from '../audit/auditLog.js';
import {
  commonOptions,
  emit,
  loadCliConfig,
  table,
  UsageError,
  withAccounts,
  withUsers,
  type CliIo,
} from './common.js';

export const settlementUsage = `  set-settlement-mode <merchant id> direct|collected: how the merchant is paid (new payments only)
  fees list          [--merchant <id>] [--mode test|live]: direct mode's fees, accrued, invoiced, outstanding
  fees invoice       <merchant id> --invoice <id> [--mode test|live] [--asset <caip19>]: invoice what is outstanding
  new-deposit-seed   print a fresh 24-word deposit seed for PAYGATE_DEPOSIT_SEED
  accept-deposit-seed [--force]: after a rotation (decisions §22.0), make the configured seed the database's
`;

export const settlementHelp: Record<string, string> = {
  'set-settlement-mode': `Usage: paygate admin set-settlement-mode <merchant id> direct|collected [--json]

direct: buyers pay the merchant's own settlement addresses; the fee accrues to a fee balance you invoice.
collected: buyers pay deposit addresses derived from PAYGATE_DEPOSIT_SEED; payouts go to the merchant net of the
fee. collected needs the deposit seed and at least one settlement address. The change applies to payments created
after it; a payment keeps the mode it was created under.
`,
  fees: `Usage: paygate admin fees list [--merchant <id>] [--mode test|live] [--json]
       paygate admin fees invoice <merchant id> --invoice <id> [--mode test|live] [--asset <caip19>] [--json]

list: per merchant, mode, chain and asset, the fees of settled direct payments (accrued), what was invoiced, and
what is outstanding, in the asset's minor units.
invoice: records the outstanding fees of the merchant (live unless --mode test; every asset unless --asset) as
invoiced, under the invoice id (1-40 of A-Z a-z 0-9 _ . -). Running it again with the same invoice id invoices
nothing more and prints what that invoice holds.
`,
  'new-deposit-seed': `Usage: paygate admin new-deposit-seed [--json]

Prints a fresh BIP-39 mnemonic of 24 words for PAYGATE_DEPOSIT_SEED (or PAYGATE_DEPOSIT_SEED_FILE). Every deposit
address, the collection account and the development treasury derive from it: write it down and store it offline
before using it. Nothing is stored.
`,
  'accept-deposit-seed': `Usage: paygate admin accept-deposit-seed [--force] [--json]

The database remembers the deposit seed it was first started with (by its EVM collection address, never the words),
and paygate start refuses another one. After a deliberate rotation (docs/decisions.md §22.0: every deposit and the
collection account of the old seed swept and paid out), run this with the new seed in PAYGATE_DEPOSIT_SEED (or
PAYGATE_DEPOSIT_SEED_FILE) to make it the database's. Refused while the ledger says the old seed still holds money
or open payments have deposit addresses; --force accepts anyway (move what the old seed holds by hand, with its words).
`,
};

/** Whether the server this configuration describes has a deposit seed (development generates one on start). */
export function depositSeedAvailable(config: Pick<Config, 'env' | 'settlement'>): boolean {
  return config.settlement.depositSeed !== null || config.env === 'development';
}

function parseWith<T extends { values: { help?: boolean }; positionals: string[] }>(command: string, run: () => T) {
  try {
    return run();
  } catch (err) {
    throw new UsageError((err as Error).message, settlementHelp[command]!);
  }
}

function modeOf(value: string | undefined, command: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'test' && value !== 'live')
    throw new UsageError('--mode must be test or live', settlementHelp[command]!);
  return value === 'live';
}

const strict = (args: string[]) => ({ args, allowPositionals: true, strict: true }) as const;

async function feesList(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseWith('fees', () =>
    parseArgs({
      ...strict(args),
      options: { ...commonOptions, merchant: { type: 'string' }, mode: { type: 'string' } },
    }),
  );
  if (values.help) return help(io, 'fees');
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, settlementHelp.fees!);
  const live = modeOf(values.mode, 'fees');
  const balances = await withAccounts(io, ({ db }) => listFeeBalances(db.knex, { merchantId: values.merchant, live }));
  const data = balances.map((b) => ({
    merchantId: b.merchantId,
    mode: b.live ? 'live' : 'test',
    chain: b.chain,
    asset: b.asset,
    accrued: b.accrued.toString(),
    invoiced: b.invoiced.toString(),
    outstanding: b.outstanding.toString(),
  }));
  emit(
    io,
    values.json,
    { balances: data },
    data.length === 0
      ? 'No fees.'
      : table(
          ['MERCHANT', 'MODE', 'ASSET', 'ACCRUED', 'INVOICED', 'OUTSTANDING'],
          data.map((d) => [d.merchantId, d.mode, d.asset, d.accrued, d.invoiced, d.outstanding]),
        ),
  );
  return 0;
}

async function feesInvoice(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseWith('fees', () =>
    parseArgs({
      ...strict(args),
      options: { ...commonOptions, invoice: { type: 'string' }, mode: { type: 'string' }, asset: { type: 'string' } },
    }),
  );
  if (values.help) return help(io, 'fees');
  const usage = settlementHelp.fees!;
  if (positionals.length !== 1) throw new UsageError('fees invoice takes one merchant id', usage);
  const merchantId = positionals[0]!;
  const invoiceId = values.invoice;
  if (invoiceId === undefined || !INVOICE_ID.test(invoiceId)) {
    throw new UsageError('--invoice <id> is required: 1-40 characters of A-Z a-z 0-9 _ . -', usage);
  }
  const live = modeOf(values.mode, 'fees') ?? true;
  const { lines, repeated } = await withAccounts(io, async ({ db, now }) => {
    if (!(await findMerchant(db.knex, merchantId))) {
      throw new ApiError('merchant_not_found', `No merchant with id ${merchantId}.`);
    }
    return invoiceFees(db.knex, { merchantId, invoiceId, live, asset: values.asset, now: now() });
  });
  const data = {
    merchantId,
    invoiceId,
    mode: live ? 'live' : 'test',
    repeated,
    lines: lines.map((l) => ({ chain: l.chain, asset: l.asset, amount: l.amount.toString() })),
  };
  const what = data.lines.map((l) => `  ${l.asset}  ${l.amount}`).join('\n');
  const human =
    data.lines.length === 0
      ? `Nothing outstanding to invoice for merchant ${merchantId} (${data.mode}).`
      : repeated
        ? `Invoice ${invoiceId} was already recorded; nothing more invoiced. It holds (minor units):\n${what}`
        : `Invoiced ${invoiceId} for merchant ${merchantId} (${data.mode}), in minor units:\n${what}`;
  emit(io, values.json, data, human);
  return 0;
}

function help(io: CliIo, command: string): number {
  io.stdout.write(settlementHelp[command]!);
  return 0;
}

export const settlementCommands: Record<string, (args: string[], io: CliIo) => Promise<number>> = {
  async 'set-settlement-mode'(args, io) {
    const command = 'set-settlement-mode';
    const { values, positionals } = parseWith(command, () => parseArgs({ ...strict(args), options: commonOptions }));
    if (values.help) return help(io, command);
    const [merchantId, mode] = positionals;
    if (positionals.length !== 2 || !isSettlementMode(mode)) {
      throw new UsageError('expected a merchant id and direct or collected', settlementHelp[command]!);
    }
    const context = { depositSeed: depositSeedAvailable(loadCliConfig(io)) };
    // A change of where buyers' money goes: in the merchant's audit log, as the dashboard's settings changes are.
    const settings = await withUsers(io, async (deps) => {
      const from = (await findMerchant(deps.db.knex, merchantId!))?.settlement_mode ?? null;
      const changed = await updateMerchantSettings(deps, merchantId!, { settlementMode: mode }, context);
      await recordAudit(deps, {
        merchantId: merchantId!,
        mode: null,
        actor: { kind: 'operator', id: 'cli' },
        action: 'setSettlementMode',
        target: null,
        details: { from, to: changed.settlementMode },
        ip: null,
      });
      return changed;
    });
    emit(
      io,
      values.json,
      { merchantId, settlementMode: settings.settlementMode },
      `Merchant ${merchantId} settles in ${settings.settlementMode} mode from its next payment on.`,
    );
    return 0;
  },

  async fees(args, io) {
    const [sub, ...rest] = args;
    if (sub === 'list') return feesList(rest, io);
    if (sub === 'invoice') return feesInvoice(rest, io);
    if (sub === '-h' || sub === '--help') return help(io, 'fees');
    throw new UsageError(
      sub === undefined ? 'fees needs list or invoice' : `unknown fees command "${sub}"`,
      settlementHelp.fees!,
    );
  },

  async 'new-deposit-seed'(args, io) {
    const { values, positionals } = parseWith('new-deposit-seed', () =>
      parseArgs({ ...strict(args), options: commonOptions }),
    );
    if (values.help) return help(io, 'new-deposit-seed');
    if (positionals.length > 0) {
      throw new UsageError(`unexpected argument "${positionals[0]}"`, settlementHelp['new-deposit-seed']!);
    }
    const mnemonic = newMnemonic();
    emit(
      io,
      values.json,
      { mnemonic },
      `${mnemonic}\n\nWrite these 24 words down and store them offline: every deposit and collection key derives from them.\n`,
    );
    return 0;
  },

  async 'accept-deposit-seed'(args, io) {
    const command = 'accept-deposit-seed';
    const { values, positionals } = parseWith(command, () =>
      parseArgs({ ...strict(args), options: { ...commonOptions, force: { type: 'boolean' } } }),
    );
    if (values.help) return help(io, command);
    if (positionals.length > 0)
      throw new UsageError(`unexpected argument "${positionals[0]}"`, settlementHelp[command]!);
    const seed = withDevelopmentSecrets(loadCliConfig(io)).settlement.depositSeed;
    if (seed === null)
      throw new UsageError('PAYGATE_DEPOSIT_SEED is not set: there is no seed to accept', settlementHelp[command]!);
    const result = await withAccounts(io, ({ db, now }) => acceptDepositSeed(db, seed, now(), { force: values.force }));
    emit(
      io,
      values.json,
      result,
      result.changed
        ? `The database's deposit seed is now the configured one (collection account ${result.current}` +
            (result.previous ? `; it was ${result.previous}).` : ').')
        : `The configured deposit seed already is the database's (collection account ${result.current}).`,
    );
    return 0;
  },
};
