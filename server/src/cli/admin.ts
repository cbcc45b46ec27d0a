/**
 * `paygate admin …`: accounts and credentials. A secret is printed once, by the command that mints it, and by no
 * other command: listings show the 12-character prefix only.
 */
import { listDiscrepancies } from '../db/queries/discrepancies.js';
import { findMerchant } from '../db/queries/accounts.js';
import { ApiError } from '../errors.js';
import { parseArgs } from 'node:util';
import { createKey, listKeys, revokeKey, rotateKey, type CreatedKey } from '../accounts/apiKeys.js';
import { createDemoAccounts } from '../accounts/bootstrap.js';
import type { KeyKind, Mode } from '../accounts/keys.js';
import { createMerchant, createPartner } from '../accounts/merchants.js';
import { accountRules } from '../chains/adapters.js';
import { ensureDemoLogin } from '../users/demoLogin.js';
import { isRole } from '../users/roles.js';
import { addMembership, createUser } from '../users/userAccounts.js';
import {
  commonOptions,
  emit,
  keyJson,
  loadCliConfig,
  merchantJson,
  partnerJson,
  table,
  UsageError,
  demoLoginText,
  withAccounts,
  withUsers,
  type CliIo,
} from './common.js';
import { readPassword } from './passwordInput.js';
import { rotateEncryptionKeyCommand, verifySecretsCommand } from './rotateEncryptionKey.js';
import { depositSeedAvailable, settlementCommands, settlementHelp, settlementUsage } from './adminSettlement.js';
import { DEFAULT_SETTLEMENT_MODE, isSettlementMode } from '../accounts/settlementMode.js';

export const adminUsage = `Usage: paygate admin <command> [options]

Commands:
  create-partner     --name <name>
  create-merchant    --partner <id> --name <name> [--id <id>]
                     [--fee-base <minor units> --fee-percent <n>/<d> [--fee-currency <ISO 4217>]]
                     [--settlement <caip2>=<address>]... [--collect-data] [--settlement-mode direct|collected]
  create-api-key     --partner <id> --mode test|live [--label <text>]
  create-wallet-key  --mode test|live [--label <text>] [--partner <id>]
  create-app         --mode test|live [--label <text>] [--partner <id>]
  list-keys          [--prefix <prefix>] [--partner <id>] [--kind merchant|wallet|app]
  revoke-key         <prefix|key id>
  rotate-key         <prefix|key id>
  create-user        --email <email> --merchant <id> --role owner|developer|viewer [--password-file <path>]
  rotate-encryption-key  [--check] [--batch <n>]: re-seal data at rest under the first PAYGATE_ENCRYPTION_KEY
  verify-secrets     open every value sealed at rest with PAYGATE_ENCRYPTION_KEY (after a restore); exit 1 if any fails
  bootstrap          demo partner and merchant with test and live credentials, and a dashboard login
  discrepancies      [--mode test|live] [--payment <id>] [--limit <n>]: money that moved but did not pay
${settlementUsage}  webhook-endpoint   a merchant's webhook endpoint and deliveries (paygate admin webhook-endpoint --help)

Options:
  --json             Print one JSON document
  -h, --help         Show help (also after a command)

The database is the one DATABASE_URL names; migrations run first.
`;

const help: Record<string, string> = {
  'create-partner': 'Usage: paygate admin create-partner --name <name> [--json]\n',
  'create-merchant': `Usage: paygate admin create-merchant --partner <id> --name <name> [options] [--json]

Options:
  --fee-base <minor units>         fixed fee part, e.g. 30 (cents)
  --fee-currency <code>            currency of the fixed part (default USD)
  --fee-percent <n>/<d>            percent part as a fraction, e.g. 29/1000 for 2.9 %
  --settlement <caip2>=<address>   payout address per chain, repeatable,
                                   e.g. ${accountRules.map((r) => r.settlementExample).join(' or ')}
  --id <id>                        use this merchant id instead of a generated one
  --collect-data                   every payment requires the buyer's identity data (travel rule),
                                   whatever its amount
  --settlement-mode <mode>         direct (default: buyers pay the settlement addresses) or collected
                                   (deposit addresses, paid out net of fees; needs PAYGATE_DEPOSIT_SEED
                                   and a settlement address)
`,
  'create-api-key':
    'Usage: paygate admin create-api-key --partner <id> --mode test|live [--label <text>] [--refunds] [--json]\n' +
    '  --refunds: the key may send on-chain refunds through a claim link or above PAYGATE_REFUND_OWNER_ABOVE\n',
  'create-wallet-key':
    'Usage: paygate admin create-wallet-key --mode test|live [--label <text>] [--partner <id>] [--json]\n',
  'create-app': 'Usage: paygate admin create-app --mode test|live [--label <text>] [--partner <id>] [--json]\n',
  'list-keys':
    'Usage: paygate admin list-keys [--prefix <prefix>] [--partner <id>] [--kind merchant|wallet|app] [--json]\n',
  'revoke-key': 'Usage: paygate admin revoke-key <prefix|key id> [--json]\n',
  'rotate-key': 'Usage: paygate admin rotate-key <prefix|key id> [--json]\n',
  bootstrap: 'Usage: paygate admin bootstrap [--json]\n',
  'rotate-encryption-key': 'Usage: paygate admin rotate-encryption-key [--check] [--batch <n>] [--json]\n',
  'verify-secrets': 'Usage: paygate admin verify-secrets [--json]\n',
  'create-user': `Usage: paygate admin create-user --email <email> --merchant <id> --role owner|developer|viewer
                              [--password-file <path>] [--json]

Creates a dashboard user, member of the merchant with the role. The password (12 to 256 characters) is read from
--password-file (its first line; - for stdin), else from stdin: typed at a prompt that does not echo, or piped.
It is never taken as an argument, where the process list and the shell history would keep it.
`,
  ...settlementHelp,
  discrepancies: `Usage: paygate admin discrepancies [--mode test|live] [--payment <id>] [--limit <n>] [--json]

Lists transfers that moved money without paying a payment as issued, newest first: late payments (mined after
the payment expired), overpayments (accepted; the excess is the merchant's to refund), underpayments (refused),
reorged_out (a direct payment's transaction left the chain) and unwatched_deposit (a deposit address holds more
than the ledger knows, e.g. a transfer after detection stopped watching it; the money is still at that address).
`,
};

/**
 * Runs a subcommand's parseArgs (kept at the call site so the option types are inferred) and applies the rules
 * every subcommand shares: `--help` wins, parse failures are usage errors, `positionals` arguments exactly.
 */
function parse<T extends { values: { help?: boolean }; positionals: string[] }>(
  command: string,
  run: () => T,
  positionals = 0,
): T | null {
  const usage = help[command]!;
  let parsed: T;
  try {
    parsed = run();
  } catch (err) {
    throw new UsageError((err as Error).message, usage);
  }
  if (parsed.values.help) return null;
  if (parsed.positionals.length !== positionals) {
    throw new UsageError(
      positionals === 0 ? `unexpected argument "${parsed.positionals[0]}"` : `expected ${positionals} argument`,
      usage,
    );
  }
  return parsed;
}

const strict = (args: string[]) => ({ args, allowPositionals: true, strict: true }) as const;

function required(value: string | undefined, flag: string, command: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`, help[command]!);
  return value;
}

function parseMode(value: string | undefined, command: string): Mode {
  const mode = required(value, '--mode', command);
  if (mode !== 'test' && mode !== 'live') throw new UsageError('--mode must be test or live', help[command]!);
  return mode;
}

function printCreatedKey(io: CliIo, json: boolean, { key, secret }: CreatedKey, verb = 'Created'): void {
  emit(
    io,
    json,
    { ...keyJson(key), key: secret },
    `${verb} ${key.kind} key ${key.id} (${key.mode}, prefix ${key.prefix})\n\n  ${secret}\n\n` +
      'Store it now: it is shown only once.\n',
  );
}

async function createKeyCommand(command: string, kind: KeyKind, args: string[], io: CliIo): Promise<number> {
  const parsed = parse(command, () =>
    parseArgs({
      ...strict(args),
      options: {
        ...commonOptions,
        mode: { type: 'string' },
        label: { type: 'string' },
        partner: { type: 'string' },
        ...(kind === 'merchant' ? { refunds: { type: 'boolean' as const } } : {}),
      },
    }),
  );
  if (!parsed) return showHelp(io, command);
  const { values } = parsed;
  const mode = parseMode(values.mode, command);
  const partnerId = kind === 'merchant' ? required(values.partner, '--partner', command) : values.partner;
  const canRefund = (values as { refunds?: boolean }).refunds === true;
  const created = await withAccounts(io, (deps) =>
    createKey(deps, { kind, mode, partnerId, label: values.label, canRefund }),
  );
  printCreatedKey(io, values.json, created);
  return 0;
}

function parseSettlements(entries: string[]): Record<string, string> {
  const usage = help['create-merchant']!;
  const out = new Map<string, string>();
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new UsageError(`--settlement takes <caip2>=<address> (got "${entry}")`, usage);
    const chain = entry.slice(0, eq);
    if (out.has(chain)) throw new UsageError(`--settlement names ${chain} twice`, usage);
    out.set(chain, entry.slice(eq + 1));
  }
  return Object.fromEntries(out);
}

function parseFee(base: string | undefined, percent: string | undefined, currency: string | undefined) {
  if (base === undefined && percent === undefined && currency === undefined) return null;
  const usage = help['create-merchant']!;
  if (base === undefined || percent === undefined) {
    throw new UsageError('a fee needs both --fee-base and --fee-percent', usage);
  }
  const fraction = /^([0-9]+)\/([0-9]+)$/.exec(percent);
  if (!fraction) throw new UsageError(`--fee-percent takes <n>/<d>, e.g. 29/1000 (got "${percent}")`, usage);
  return {
    kind: 'base_plus_percent',
    base: { unit: `iso4217/${(currency ?? 'USD').toUpperCase()}`, value: base },
    percent: { numerator: fraction[1], denominator: fraction[2] },
  };
}

function showHelp(io: CliIo, command: string): number {
  io.stdout.write(help[command]!);
  return 0;
}

const commands: Record<string, (args: string[], io: CliIo) => Promise<number>> = {
  ...settlementCommands,
  // Loaded on use: the webhook modules and the job queue are more than the other commands need.
  'webhook-endpoint': async (args, io) => (await import('./webhookEndpoint.js')).runWebhookEndpoint(args, io),

  async discrepancies(args, io) {
    const parsed = parse('discrepancies', () =>
      parseArgs({
        ...strict(args),
        options: {
          ...commonOptions,
          mode: { type: 'string' },
          payment: { type: 'string' },
          limit: { type: 'string' },
        },
      }),
    );
    if (!parsed) return showHelp(io, 'discrepancies');
    const { values } = parsed;
    const limit = values.limit === undefined ? 100 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new UsageError('--limit must be an integer from 1 to 1000', help.discrepancies!);
    }
    const live = values.mode === undefined ? undefined : parseMode(values.mode, 'discrepancies') === 'live';
    const rows = await withAccounts(io, ({ db }) =>
      listDiscrepancies(db.knex, { live, paymentId: values.payment, limit }),
    );
    const data = rows.map((r) => ({ ...r, createdAt: new Date(r.createdAt).toISOString() }));
    const human = data.length
      ? data
          .map(
            (r) =>
              `${r.createdAt}  ${r.kind.padEnd(17)} ${r.paymentId}  ${r.chain}  ${r.txId ?? '-'}\n` +
              `    expected ${r.expectedValue}, received ${r.receivedValue} ${r.assetUnit}: ${r.note}`,
          )
          .join('\n')
      : 'No discrepancies.';
    emit(io, values.json ?? false, data, human);
    return 0;
  },

  async 'create-partner'(args, io) {
    const parsed = parse('create-partner', () =>
      parseArgs({ ...strict(args), options: { ...commonOptions, name: { type: 'string' } } }),
    );
    if (!parsed) return showHelp(io, 'create-partner');
    const name = required(parsed.values.name, '--name', 'create-partner');
    const partner = await withAccounts(io, (deps) => createPartner(deps, { name }));
    emit(io, parsed.values.json, partnerJson(partner), `Created partner ${partner.id} (${partner.name})`);
    return 0;
  },

  async 'create-merchant'(args, io) {
    const parsed = parse('create-merchant', () =>
      parseArgs({
        ...strict(args),
        options: {
          ...commonOptions,
          partner: { type: 'string' },
          name: { type: 'string' },
          id: { type: 'string' },
          'fee-base': { type: 'string' },
          'fee-currency': { type: 'string' },
          'fee-percent': { type: 'string' },
          settlement: { type: 'string', multiple: true },
          'collect-data': { type: 'boolean' },
          'settlement-mode': { type: 'string' },
        },
      }),
    );
    if (!parsed) return showHelp(io, 'create-merchant');
    const { values } = parsed;
    const settlementMode = values['settlement-mode'] ?? 'direct';
    if (!isSettlementMode(settlementMode)) {
      throw new UsageError('--settlement-mode must be direct or collected', help['create-merchant']!);
    }
    const input = {
      partnerId: required(values.partner, '--partner', 'create-merchant'),
      name: required(values.name, '--name', 'create-merchant'),
      feeConfig: parseFee(values['fee-base'], values['fee-percent'], values['fee-currency']),
      settlementAddresses: parseSettlements(values.settlement ?? []),
      collectData: values['collect-data'] ?? false,
      settlementMode,
      ...(values.id === undefined ? {} : { id: values.id }),
    };
    const context = { depositSeed: depositSeedAvailable(loadCliConfig(io)) };
    const merchant = await withAccounts(io, (deps) => createMerchant(deps, input, undefined, context));
    emit(
      io,
      values.json,
      merchantJson(merchant),
      `Created merchant ${merchant.id} (${merchant.name}) for partner ${merchant.partner_id}` +
        (merchant.collect_data ? "; every payment requires the buyer's identity data" : '') +
        (merchant.settlement_mode === DEFAULT_SETTLEMENT_MODE ? '' : `; settlement mode ${merchant.settlement_mode}`),
    );
    return 0;
  },

  'create-api-key': (args, io) => createKeyCommand('create-api-key', 'merchant', args, io),
  'create-wallet-key': (args, io) => createKeyCommand('create-wallet-key', 'wallet', args, io),
  'create-app': (args, io) => createKeyCommand('create-app', 'app', args, io),

  async 'list-keys'(args, io) {
    const parsed = parse('list-keys', () =>
      parseArgs({
        ...strict(args),
        options: {
          ...commonOptions,
          prefix: { type: 'string' },
          partner: { type: 'string' },
          kind: { type: 'string' },
        },
      }),
    );
    if (!parsed) return showHelp(io, 'list-keys');
    const { values } = parsed;
    const kind = values.kind;
    if (kind !== undefined && kind !== 'merchant' && kind !== 'wallet' && kind !== 'app') {
      throw new UsageError('--kind must be merchant, wallet or app', help['list-keys']!);
    }
    const keys = await withAccounts(io, (deps) =>
      listKeys(deps, { prefix: values.prefix, partnerId: values.partner, kind }),
    );
    const rows = keys.map((k) => {
      const j = keyJson(k);
      return [j.id, j.kind, j.mode, j.prefix, j.label ?? '', j.createdAt ?? '', j.revokedAt ?? ''];
    });
    emit(
      io,
      values.json,
      { keys: keys.map(keyJson) },
      keys.length === 0 ? 'No keys.' : table(['ID', 'KIND', 'MODE', 'PREFIX', 'LABEL', 'CREATED', 'REVOKED'], rows),
    );
    return 0;
  },

  async 'revoke-key'(args, io) {
    const parsed = parse('revoke-key', () => parseArgs({ ...strict(args), options: commonOptions }), 1);
    if (!parsed) return showHelp(io, 'revoke-key');
    const key = await withAccounts(io, (deps) => revokeKey(deps, parsed.positionals[0]!));
    emit(io, parsed.values.json, keyJson(key), `Revoked ${key.kind} key ${key.id} (${key.prefix})`);
    return 0;
  },

  async 'rotate-key'(args, io) {
    const parsed = parse('rotate-key', () => parseArgs({ ...strict(args), options: commonOptions }), 1);
    if (!parsed) return showHelp(io, 'rotate-key');
    const { revoked, created } = await withAccounts(io, (deps) => rotateKey(deps, parsed.positionals[0]!));
    if (parsed.values.json) {
      emit(io, true, { revoked: keyJson(revoked), created: { ...keyJson(created.key), key: created.secret } }, '');
    } else {
      io.stdout.write(`Revoked ${revoked.kind} key ${revoked.id} (${revoked.prefix})\n`);
      printCreatedKey(io, false, created, 'Replaced it with');
    }
    return 0;
  },

  async 'create-user'(args, io) {
    const parsed = parse('create-user', () =>
      parseArgs({
        ...strict(args),
        options: {
          ...commonOptions,
          email: { type: 'string' },
          merchant: { type: 'string' },
          role: { type: 'string' },
          'password-file': { type: 'string' },
        },
      }),
    );
    if (!parsed) return showHelp(io, 'create-user');
    const { values } = parsed;
    const email = required(values.email, '--email', 'create-user');
    const merchantId = required(values.merchant, '--merchant', 'create-user');
    const role = required(values.role, '--role', 'create-user');
    if (!isRole(role)) throw new UsageError('--role must be owner, developer or viewer', help['create-user']!);
    const password = await readPassword(io, values['password-file']);
    const user = await withUsers(io, async (deps) => {
      // Checked first, so an unknown merchant leaves no user behind.
      if (!(await findMerchant(deps.db.knex, merchantId))) {
        throw new ApiError('merchant_not_found', `No merchant with id ${merchantId}.`);
      }
      const created = await createUser(deps, { email, password });
      await addMembership(deps, created.id, merchantId, role);
      return created;
    });
    emit(
      io,
      values.json,
      { id: user.id, email: email.trim().toLowerCase(), merchantId, role },
      `Created user ${user.id}, ${role} of merchant ${merchantId}. Sign in at /dashboard with the email and password.`,
    );
    return 0;
  },

  async 'rotate-encryption-key'(args, io) {
    const parsed = parse('rotate-encryption-key', () =>
      parseArgs({
        ...strict(args),
        options: { ...commonOptions, check: { type: 'boolean' }, batch: { type: 'string' } },
      }),
    );
    if (!parsed) return showHelp(io, 'rotate-encryption-key');
    const { values } = parsed;
    const batch = values.batch === undefined ? 500 : Number(values.batch);
    if (!Number.isInteger(batch) || batch < 1 || batch > 10000) {
      throw new UsageError('--batch must be an integer from 1 to 10000', help['rotate-encryption-key']!);
    }
    return rotateEncryptionKeyCommand(io, { check: values.check ?? false, batch, json: values.json ?? false });
  },

  async 'verify-secrets'(args, io) {
    const parsed = parse('verify-secrets', () => parseArgs({ ...strict(args), options: commonOptions }));
    if (!parsed) return showHelp(io, 'verify-secrets');
    return verifySecretsCommand(io, { json: parsed.values.json ?? false });
  },

  async bootstrap(args, io) {
    const parsed = parse('bootstrap', () => parseArgs({ ...strict(args), options: commonOptions }));
    if (!parsed) return showHelp(io, 'bootstrap');
    const c = await withUsers(io, async (deps) => {
      const accounts = await createDemoAccounts(deps);
      return { ...accounts, dashboard: await ensureDemoLogin(deps, accounts.merchantId) };
    });
    emit(
      io,
      parsed.values.json,
      c,
      `Created the demo partner and merchant.

  Partner id           ${c.partnerId}
  Merchant id          ${c.merchantId}
  Merchant API key     ${c.merchantApiKey}
                       ${c.merchantApiKeyLive}
  Wallet API key       ${c.walletApiKey}
                       ${c.walletApiKeyLive}
  App id               ${c.appId}
                       ${c.appIdLive}
${demoLoginText(c.dashboard)}
The keys and the password are shown only once; sign in to the dashboard at /dashboard.
`,
    );
    return 0;
  },
};

export async function runAdmin(args: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = args;
  if (command === undefined) throw new UsageError('admin needs a command', adminUsage);
  if (command === '-h' || command === '--help') {
    io.stdout.write(adminUsage);
    return 0;
  }
  const run = commands[command];
  if (!run) throw new UsageError(`unknown admin command "${command}"`, adminUsage);
  return run(rest, io);
}
