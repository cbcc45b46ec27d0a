/**
 * `paygate admin webhook-endpoint …`: the dashboard API's actions from the command line, through the same domain
 * functions (not HTTP), so an operator can act for a merchant without its API key. `--json` prints what the
 * dashboard API answers, except `create`, which prints `{endpointId, secret}`. Deliveries are queued in the
 * database; a running `paygate start` (or `paygate worker`) sends them.
 */
import { parseArgs } from 'node:util';
import { findMerchant } from '../db/queries/accounts.js';
import { findActiveEndpoints } from '../db/queries/webhooks.js';
import { ApiError } from '../errors.js';
import type { WebhookEventType } from '../payments/stateMachine.js';
import { getDelivery, listDeliveryPage, type DeliveryListQuery } from '../webhooks/deliveries.js';
import {
  createEndpoint,
  deleteEndpoint,
  EVENT_TYPES,
  requireEndpoint,
  rotateSecret,
  updateEndpointSettings,
  type Mode,
} from '../webhooks/endpoints.js';
import { replaySince, resendDelivery, resendFailedSince, sendTestEvent } from '../webhooks/recovery.js';
import { deliveryJson, endpointJson } from '../webhooks/wire.js';
import { commonOptions, emit, table, UsageError, type CliIo } from './common.js';
import { withWebhookDeps, type CliWebhookDeps } from './webhookDeps.js';
import { describeDelivery, describeEndpoint, time } from './webhookText.js';

const SCOPE = '--merchant <id> --mode test|live';
const TYPES = EVENT_TYPES.join(',');

export const webhookEndpointUsage = `Usage: paygate admin webhook-endpoint <command> ${SCOPE} [options] [--json]

Commands:
  create          --url <url> [--event-types <type,…>]   register the endpoint; prints its secret once
  get                                                     show the endpoint (never its secret)
  update          [--url <url>] [--event-types <type,…>]
  enable                                                  receive events again (catch up with replay)
  disable                                                 stop; pending deliveries become failed
  rotate                                                  new secret; the old one signs 24 more hours
  delete                                                  immediate and irreversible
  list            --merchant <id>                         the merchant's endpoints, both modes
  test            --type <event type>                     send a test event (sample data, live = false)
  deliveries      [--status pending|delivered|failed] [--event-type <type>] [--event <evt_…>]
                  [--payment <pay_…>] [--since <time>] [--limit 1-100] [--starting-after <whd_…>]
  delivery        <deliveryId>                            one delivery and its attempts
  resend          <deliveryId>                            send its event again, as a new delivery
  resend-failed   --since <time>                          resend every delivery that failed since then
  replay          --since <time>                          send the events the endpoint never received (≤ 14 days)

<time> is Unix seconds or an ISO 8601 date. Event types: ${TYPES}.
The database is the one DATABASE_URL names; migrations run first.
`;

const commandHelp = (command: string, synopsis: string) =>
  `Usage: paygate admin webhook-endpoint ${command} ${synopsis} [--json]\n\nSee "paygate admin webhook-endpoint --help".\n`;

const scopeOptions = { merchant: { type: 'string' }, mode: { type: 'string' } } as const;
const stringOption = { type: 'string' } as const;

interface Command {
  synopsis: string;
  options?: Record<string, typeof stringOption>;
  positionals?: number;
  /** `list` acts for both modes. */
  noMode?: boolean;
  run(ctx: Context): Promise<void>;
}

interface Context {
  io: CliIo;
  deps: CliWebhookDeps;
  merchantId: string;
  mode: Mode;
  values: Record<string, string | undefined>;
  args: string[];
  json: boolean;
  help: string;
}

function eventTypes(raw: string | undefined, help: string): WebhookEventType[] | undefined {
  if (raw === undefined) return undefined;
  const list = raw.split(',').map((t) => t.trim());
  const unknown = list.find((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown !== undefined) throw new UsageError(`unknown event type "${unknown}" (one of ${TYPES})`, help);
  return list as WebhookEventType[];
}

/** Unix seconds or an ISO 8601 date, as milliseconds on a whole second (the API's resolution). */
function parseTime(raw: string | undefined, flag: string, help: string): number {
  if (raw === undefined || raw === '') throw new UsageError(`${flag} is required`, help);
  const ms = /^[0-9]+$/.test(raw) ? Number(raw) * 1000 : Date.parse(raw);
  if (!Number.isFinite(ms)) throw new UsageError(`${flag} takes Unix seconds or an ISO 8601 date (got "${raw}")`, help);
  return Math.floor(ms / 1000) * 1000;
}

const commands: Record<string, Command> = {
  create: {
    synopsis: `${SCOPE} --url <url> [--event-types <type,…>]`,
    options: { url: stringOption, 'event-types': stringOption },
    async run({ io, deps, merchantId, mode, values, json, help }) {
      if (!values.url) throw new UsageError('--url is required', help);
      const input = { url: values.url, eventTypes: eventTypes(values['event-types'], help) };
      const { endpoint, secret } = await createEndpoint(deps, merchantId, mode, input);
      emit(
        io,
        json,
        { endpointId: endpoint.id, secret },
        `Created the ${mode} webhook endpoint ${endpoint.id} for ${endpoint.url}\n\n  ${secret}\n\n` +
          'Store the signing secret now: it is shown only once.\n',
      );
    },
  },
  get: {
    synopsis: SCOPE,
    async run({ io, deps, merchantId, mode, json }) {
      const endpoint = endpointJson(await requireEndpoint(deps, merchantId, mode), deps.now());
      emit(io, json, endpoint, describeEndpoint(endpoint));
    },
  },
  update: {
    synopsis: `${SCOPE} [--url <url>] [--event-types <type,…>]`,
    options: { url: stringOption, 'event-types': stringOption },
    async run({ io, deps, merchantId, mode, values, json, help }) {
      if (values.url === undefined && values['event-types'] === undefined)
        throw new UsageError('give --url or --event-types', help);
      const input = { url: values.url, eventTypes: eventTypes(values['event-types'], help) };
      const endpoint = endpointJson(await updateEndpointSettings(deps, merchantId, mode, input), deps.now());
      emit(io, json, endpoint, describeEndpoint(endpoint));
    },
  },
  enable: { synopsis: SCOPE, run: (ctx) => setEnabled(ctx, true) },
  disable: { synopsis: SCOPE, run: (ctx) => setEnabled(ctx, false) },
  rotate: {
    synopsis: SCOPE,
    async run({ io, deps, merchantId, mode, json }) {
      const rotated = await rotateSecret(deps, merchantId, mode);
      const endpoint = endpointJson(rotated.endpoint, deps.now());
      emit(
        io,
        json,
        { endpoint, secret: rotated.secret, previousSecretExpiresAt: endpoint.previousSecretExpiresAt },
        `Rotated the signing secret of ${endpoint.id}\n\n  ${rotated.secret}\n\n` +
          `Store it now: it is shown only once. The previous secret signs too until ` +
          `${time(endpoint.previousSecretExpiresAt)}.\n`,
      );
    },
  },
  delete: {
    synopsis: SCOPE,
    async run({ io, deps, merchantId, mode, json }) {
      const endpoint = await deleteEndpoint(deps, merchantId, mode);
      emit(io, json, { endpointId: endpoint.id, deleted: true }, `Deleted the ${mode} webhook endpoint ${endpoint.id}`);
    },
  },
  list: {
    synopsis: '--merchant <id>',
    noMode: true,
    async run({ io, deps, merchantId, json }) {
      const endpoints = (await findActiveEndpoints(deps.db.knex, merchantId)).map((e) => endpointJson(e, deps.now()));
      const rows = endpoints.map((e) => [e.id, e.mode, e.enabled ? 'yes' : 'no', e.url, e.eventTypes.join(',')]);
      emit(
        io,
        json,
        { endpoints },
        endpoints.length === 0 ? 'No webhook endpoints.' : table(['ID', 'MODE', 'ENABLED', 'URL', 'EVENT TYPES'], rows),
      );
    },
  },
  test: {
    synopsis: `${SCOPE} --type <event type>`,
    options: { type: stringOption },
    async run({ io, deps, merchantId, mode, values, json, help }) {
      const [type] = eventTypes(values.type, help) ?? [];
      if (type === undefined) throw new UsageError('--type is required', help);
      const { delivery, event } = await sendTestEvent(deps, merchantId, mode, type);
      emit(
        io,
        json,
        { delivery: deliveryJson(delivery, []), event },
        `Queued test ${type} event ${event.id} as delivery ${delivery.id} to ${delivery.endpoint_id}`,
      );
    },
  },
  deliveries: {
    synopsis: `${SCOPE} [--status <status>] [--event-type <type>] [--event <id>] [--payment <id>] [--since <time>] [--limit <n>] [--starting-after <id>]`,
    options: {
      status: stringOption,
      'event-type': stringOption,
      event: stringOption,
      payment: stringOption,
      since: stringOption,
      limit: stringOption,
      'starting-after': stringOption,
    },
    async run({ io, deps, merchantId, mode, values, json, help }) {
      const status = values.status;
      if (status !== undefined && !['pending', 'delivered', 'failed'].includes(status))
        throw new UsageError('--status must be pending, delivered or failed', help);
      if (values.limit !== undefined && !/^[0-9]+$/.test(values.limit))
        throw new UsageError('--limit must be a whole number from 1 to 100', help);
      const query: DeliveryListQuery = {
        status: status as DeliveryListQuery['status'],
        eventType: eventTypes(values['event-type'], help)?.[0],
        eventId: values.event,
        paymentId: values.payment,
        createdGte: values.since === undefined ? undefined : parseTime(values.since, '--since', help) / 1000,
        limit: values.limit === undefined ? undefined : Number(values.limit),
        startingAfter: values['starting-after'],
      };
      const page = await listDeliveryPage(deps, merchantId, mode, query);
      const rows = page.data.map((d) => [
        d.id,
        d.eventType,
        d.trigger,
        d.status,
        String(d.attemptCount),
        time(d.createdAt),
      ]);
      const more = page.hasMore ? `\nMore: --starting-after ${page.nextCursor}\n` : '';
      emit(
        io,
        json,
        page,
        rows.length === 0
          ? 'No deliveries.'
          : table(['ID', 'EVENT TYPE', 'TRIGGER', 'STATUS', 'ATTEMPTS', 'CREATED'], rows) + more,
      );
    },
  },
  delivery: {
    synopsis: `<deliveryId> ${SCOPE}`,
    positionals: 1,
    async run({ io, deps, merchantId, mode, args, json }) {
      const delivery = await getDelivery(deps, merchantId, mode, args[0]!);
      emit(io, json, delivery, describeDelivery(delivery));
    },
  },
  resend: {
    synopsis: `<deliveryId> ${SCOPE}`,
    positionals: 1,
    async run({ io, deps, merchantId, mode, args, json }) {
      const delivery = deliveryJson(await resendDelivery(deps, merchantId, mode, args[0]!), []);
      emit(io, json, delivery, `Queued delivery ${delivery.id}, a resend of ${delivery.eventId}`);
    },
  },
  'resend-failed': {
    synopsis: `${SCOPE} --since <time>`,
    options: { since: stringOption },
    async run({ io, deps, merchantId, mode, values, json, help }) {
      const resent = await resendFailedSince(deps, merchantId, mode, parseTime(values.since, '--since', help));
      emit(io, json, { resent }, `Queued ${resent} resend(s).`);
    },
  },
  replay: {
    synopsis: `${SCOPE} --since <time>`,
    options: { since: stringOption },
    async run({ io, deps, merchantId, mode, values, json, help }) {
      const replayed = await replaySince(deps, merchantId, mode, parseTime(values.since, '--since', help));
      emit(io, json, { replayed }, `Queued ${replayed} replayed event(s).`);
    },
  },
};

async function setEnabled({ io, deps, merchantId, mode, json }: Context, enabled: boolean): Promise<void> {
  const endpoint = endpointJson(await updateEndpointSettings(deps, merchantId, mode, { enabled }), deps.now());
  emit(io, json, endpoint, describeEndpoint(endpoint));
}

export async function runWebhookEndpoint(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) throw new UsageError('webhook-endpoint needs a command', webhookEndpointUsage);
  if (name === '-h' || name === '--help') {
    io.stdout.write(webhookEndpointUsage);
    return 0;
  }
  const command = commands[name];
  if (!command) throw new UsageError(`unknown webhook-endpoint command "${name}"`, webhookEndpointUsage);
  const help = commandHelp(name, command.synopsis);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      strict: true,
      options: { ...commonOptions, ...scopeOptions, ...command.options },
    });
  } catch (err) {
    throw new UsageError((err as Error).message, help);
  }
  const values = parsed.values as Record<string, string | undefined> & { json: boolean; help: boolean };
  if (values.help) {
    io.stdout.write(help);
    return 0;
  }
  const expected = command.positionals ?? 0;
  if (parsed.positionals.length !== expected) {
    throw new UsageError(
      expected === 0 ? `unexpected argument "${parsed.positionals[0]}"` : `expected ${expected} argument`,
      help,
    );
  }
  const merchantId = values.merchant;
  if (!merchantId) throw new UsageError('--merchant is required', help);
  let mode: Mode = 'test';
  if (!command.noMode) {
    if (!values.mode) throw new UsageError('--mode is required', help);
    if (values.mode !== 'test' && values.mode !== 'live') throw new UsageError('--mode must be test or live', help);
    mode = values.mode;
  } else if (values.mode !== undefined) {
    throw new UsageError(`${name} lists both modes; --mode does not apply`, help);
  }
  await withWebhookDeps(io, async (deps) => {
    if (!(await findMerchant(deps.db.knex, merchantId)))
      throw new ApiError('merchant_not_found', `No merchant with id ${merchantId}.`);
    await command.run({ io, deps, merchantId, mode, values, args: parsed.positionals, json: values.json, help });
  });
  return 0;
}
