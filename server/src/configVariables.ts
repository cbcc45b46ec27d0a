/**
 * Every setting, documented: the README's configuration table is generated from this list
 * (`npm run config:table`), and a test fails when the two differ or when config.ts reads a variable missing here.
 */

/** One documented variable: the README's table is checked against this list by a test. */
export interface VariableSpec {
  name: string;
  type: string;
  default: string;
  modes: string;
  secret?: boolean;
  description: string;
}

export const variables: VariableSpec[] = [
  {
    name: 'PAYGATE_ENV',
    type: '`development` \\| `staging` \\| `production`',
    default: '`development`',
    modes: 'all',
    description: 'Selects defaults. `staging` is the sandbox: it accepts test keys only.',
  },
  {
    name: 'PORT',
    type: 'integer 0–65535 (0: any free port)',
    default: '`3000`',
    modes: 'all',
    description: 'HTTP port of the API.',
  },
  {
    name: 'HOST',
    type: 'string',
    default: '`127.0.0.1` in development, `0.0.0.0` otherwise',
    modes: 'all',
    description: 'Interface the API listens on.',
  },
  {
    name: 'PUBLIC_BASE_URL',
    type: 'http(s) URL',
    default: '`http://localhost:$PORT` in development; required otherwise',
    modes: 'all',
    description: 'Base of the `gatewayUrl` and data-collection URLs handed to buyers.',
  },
  {
    name: 'DATABASE_URL',
    type: 'secret: `postgres://…` or `sqlite:<path>`',
    default: '`sqlite:$PAYGATE_DATA_DIR/paygate.sqlite`',
    modes: 'all',
    secret: true,
    description:
      'PostgreSQL for production and scale; SQLite (embedded) otherwise. A secret because it holds the password.',
  },
  {
    name: 'PAYGATE_DATA_DIR',
    type: 'path',
    default: '`./data`',
    modes: 'all',
    description: 'Where the embedded database and development secrets live.',
  },
  {
    name: 'PAYGATE_ENCRYPTION_KEY',
    type: 'secret: `<id>:<base64 32 bytes>[,<id>:<base64>…]`',
    default: 'generated into the data dir in development; required otherwise',
    modes: 'all',
    secret: true,
    description: 'AES-256-GCM keys for webhook secrets and personal data at rest. The first key encrypts; all decrypt.',
  },
  {
    name: 'PAYGATE_OPTION_SECRET',
    type: 'secret: ≥ 32 bytes (base64 or text)',
    default: 'generated into the data dir in development; required otherwise',
    modes: 'all',
    secret: true,
    description:
      'HMAC key that signs option ids, data-collection links and derives the hosted checkout app ids. To rotate it, put the new secret here and the old one in PAYGATE_OPTION_SECRET_PREVIOUS.',
  },
  {
    name: 'PAYGATE_OPTION_SECRET_PREVIOUS',
    type: 'secret: comma list of ≥ 32-byte secrets (base64 or text without commas)',
    default: 'none',
    modes: 'all',
    secret: true,
    description:
      'Option secrets retired by a rotation: they still verify option ids and data-collection links issued before it, and sign nothing. Keep the old secret here until the longest payment window has passed (7 days at most), then remove it.',
  },
  {
    name: 'PAYGATE_CHAINS',
    type: '`local`, or a comma list of `live`, `testnet`, `solana`, `solana-devnet` and paths',
    default: '`local` in development; required otherwise',
    modes: 'all',
    description:
      '`local` starts a local EVM chain (anvil) and a local Solana chain (LiteSVM), both with Paygate Test USD, and the dev routes. `live`, `testnet`, `solana` and `solana-devnet` are the shipped presets; a path names a chain configuration file. See "Chains".',
  },
  {
    name: 'PAYGATE_WEBHOOK_ALLOW_LOOPBACK',
    type: 'boolean',
    default: '`true` in development, `false` otherwise',
    modes: 'test mode only',
    description: 'Allows `http://` webhook endpoints on 127.0.0.0/8, `localhost` and `[::1]` for test-mode endpoints.',
  },
  {
    name: 'PAYGATE_WEBHOOK_RETENTION_DAYS',
    type: 'integer 7–3650 (days)',
    default: '`90`',
    modes: 'all',
    description:
      "How long webhook attempts (status, latency, error, the answer's first 4 KB) are kept. Older ones are removed in small batches by a job; the delivery itself, its status and attempt count stay, marked `attemptsPruned`.",
  },
  {
    name: 'PAYGATE_WEBHOOK_SOURCE_ADDRESSES',
    type: 'comma-separated IP addresses or CIDR ranges',
    default: 'none',
    modes: 'all',
    description:
      'The addresses webhook deliveries leave from (your egress: NAT, proxy), shown to merchants in the dashboard for their firewall allow-lists (`getWebhookSources`). Published only, not enforced. Empty: not published.',
  },
  {
    name: 'PAYGATE_SCREENING_FILE',
    type: 'path',
    default: 'none',
    modes: 'all',
    description:
      'A file of screened accounts (one CAIP-10 or address per line); get payment options, Solana Pay transaction requests and confirm refuse them with `sanctioned_user` (only confirm also fails the payment), and a transfer from one to a deposit address is held, never credited.',
  },
  {
    name: 'PAYGATE_LATE_CONFIRM_GRACE_S',
    type: 'integer 0–3600',
    default: '`120`',
    modes: 'all',
    description:
      'After `expiresAt`, how long a transfer mined in time can still be confirmed; the payment becomes `expired` only then.',
  },
  {
    name: 'PAYGATE_QUOTE_TTL_S',
    type: 'integer 1–3600',
    default: '`300`',
    modes: 'all',
    description:
      "How long an option priced at an exchange rate stays valid (its `expiresAt`), counted from when the price was read. An option in a stablecoin of the payment's currency does not expire.",
  },
  {
    name: 'PAYGATE_RATES_FILE',
    type: 'path',
    default: 'none',
    modes: 'test mode only',
    description:
      'A JSON object of prices, e.g. `{"ETH/USD": "3125.50"}` (quote currency per unit of the base, as decimal strings), over the built-in table that prices test-mode chains without price feeds (the local chain, the testnet presets). Live chains are priced from their Chainlink feeds only.',
  },
  {
    name: 'PAYGATE_RATE_LIMIT_RPS',
    type: 'number > 0',
    default: '`50`',
    modes: 'all',
    description: 'Sustained requests per second per credential, per process.',
  },
  {
    name: 'PAYGATE_RATE_LIMIT_BURST',
    type: 'integer > 0',
    default: '`100`',
    modes: 'all',
    description: 'Burst size of the per-credential token bucket.',
  },
  {
    name: 'PAYGATE_CREDENTIAL_CACHE_TTL_MS',
    type: 'integer 0–60000 (milliseconds)',
    default: '`5000`',
    modes: 'all',
    description:
      'How long a merchant API key that authenticated is trusted without a database read. A key revoked by this process is refused at once; one revoked by another process (the CLI, another instance) within this time. `0`: read every time.',
  },
  {
    name: 'PAYGATE_DEPOSIT_SEED',
    type: 'secret: BIP-39 mnemonic (12–24 English words)',
    default: 'generated into the data dir in development; unset otherwise (no collected settlement)',
    modes: 'all',
    secret: true,
    description:
      'The master secret of collected settlement: every deposit address, the collection account and (in development) the treasury derive from it by standard BIP-44 paths. Back it up offline; see docs/decisions.md §22 for recovery and rotation.',
  },
  {
    name: 'PAYGATE_TREASURY_ADDRESSES',
    type: 'comma list of CAIP-10 accounts, one per chain',
    default: 'none (development: a key derived from the deposit seed)',
    modes: 'all',
    description: 'Where payouts send the fees collected in `collected` mode, per chain.',
  },
  {
    name: 'PAYGATE_PAYOUT_INTERVAL_S',
    type: 'integer 10–2592000 (seconds)',
    default: '`60` in development, `3600` otherwise',
    modes: 'all',
    description:
      "How often payouts of collected funds are made (intervals past Node's 24.8-day timer limit are checked every minute).",
  },
  {
    name: 'PAYGATE_PAYOUT_MINIMUM',
    type: 'decimal, whole units of the asset',
    default: '`0`',
    modes: 'all',
    description: 'The least a payout moves; a smaller balance waits for the next interval.',
  },
  {
    name: 'PAYGATE_REFUND_MINIMUM',
    type: 'decimal, whole units; or a comma list with `<caip19>=<decimal>` exceptions',
    default: '`1`',
    modes: 'all',
    description:
      'The least an on-chain refund (collected mode) sends, per asset: smaller refunds are refused, since each is a transaction the operator pays for.',
  },
  {
    name: 'PAYGATE_REFUND_NETWORK_FEE',
    type: 'decimal, whole units; or a comma list with `<caip19>=<decimal>` exceptions',
    default: '`0.1`',
    modes: 'all',
    description:
      "What the merchant's unpaid balance is charged for each on-chain refund's transaction, per asset (kept by the operator, given back if the refund is never sent). Set it near your chains' gas or rent cost.",
  },
  {
    name: 'PAYGATE_REFUND_OWNER_ABOVE',
    type: 'decimal, whole units; or a comma list with `<caip19>=<decimal>` exceptions',
    default: '`100`',
    modes: 'all',
    description:
      'An on-chain refund of more than this, or any refund through a claim link, needs an API key an owner created with refunds allowed.',
  },
  {
    name: 'PAYGATE_REFUND_LIMIT_PER_PAYMENT',
    type: 'integer 1–1000',
    default: '`10`',
    modes: 'all',
    description: 'How many on-chain refunds one payment may have (claim links that ended unused do not count).',
  },
  {
    name: 'PAYGATE_RECONCILE_INTERVAL_S',
    type: 'integer 10–86400 (seconds)',
    default: '`300`',
    modes: 'all',
    description:
      'How often the ledger is compared with the on-chain balances of deposit, collection and treasury addresses.',
  },
  {
    name: 'PAYGATE_RECONCILE_READINESS',
    type: 'boolean',
    default: '`true`',
    modes: 'all',
    description:
      'Whether a standing reconciliation shortfall (money the ledger counts and the chain does not hold) fails `/readyz`. Every difference is a metric and a log line; a surplus never fails readiness (anyone can send to a public address) and one at a deposit address is an `unwatched_deposit` discrepancy.',
  },
  {
    name: 'PAYGATE_DEPOSIT_SCAN_INTERVAL_MS',
    type: 'integer 100–600000 (milliseconds)',
    default: '`2000`',
    modes: 'all',
    description: 'How often detection scans the chains for transfers to deposit addresses.',
  },
  {
    name: 'PAYGATE_DASHBOARD_IDLE_TIMEOUT',
    type: 'integer 60–86400 (seconds)',
    default: '`1800`',
    modes: 'all',
    description:
      'A dashboard session ends after this long without a request (its use is recorded at most once a minute).',
  },
  {
    name: 'PAYGATE_DASHBOARD_SESSION_TTL',
    type: 'integer 300–2592000 (seconds)',
    default: '`43200`',
    modes: 'all',
    description: 'A dashboard session ends this long after sign-in, however it is used.',
  },
  {
    name: 'PAYGATE_PASSWORD_COST',
    type: 'integer 15–20 (10–20 outside production)',
    default: '`17`',
    modes: 'all',
    description:
      'log2 of the scrypt cost N of new dashboard password hashes (r=8, p=1; 17 uses 128 MiB for about 0.3 s per sign-in). Existing hashes keep the cost they were made with. Lower it only for tests.',
  },
  {
    name: 'PAYGATE_REQUEST_TIMEOUT_MS',
    type: 'integer ≥ 1 (milliseconds)',
    default: '`30000`',
    modes: 'all',
    description:
      'A request not answered in time gets 503 `internal_error`. Keep it above 25000, the longest `maxPollMs` long-poll.',
  },
  {
    name: 'PAYGATE_SHUTDOWN_TIMEOUT_MS',
    type: 'integer ≥ 0 (milliseconds)',
    default: '`25000`',
    modes: 'all',
    description:
      "On SIGTERM, how long in-flight requests and jobs may take to finish before they are interrupted. Keep it below the orchestrator's kill delay (Kubernetes: 30 s).",
  },
  {
    name: 'PAYGATE_TRUST_PROXY',
    type: '`false` \\| `true` \\| hop count \\| comma list of IPs, CIDRs, `loopback`, `linklocal`, `uniquelocal`',
    default: '`false`',
    modes: 'all',
    description:
      'Which proxies may set `X-Forwarded-For` / `X-Forwarded-Proto` (Express `trust proxy`); decides the client IP that the per-address limits (sign-in, claim links, rate limits) and the logs use. `true` trusts every hop, so any client could choose its own address: refused when `PAYGATE_ENV=production` and a warning at start elsewhere; give the hop count of your proxies (e.g. `1`) or their addresses.',
  },
  {
    name: 'PAYGATE_CORS_ORIGINS',
    type: '`*` or a comma list of origins (`https://wallet.example`)',
    default: '`*`',
    modes: 'all',
    description:
      'Browser origins allowed to call the gateway routes (`/v1/gateway/*`). Merchant and dashboard routes never allow CORS.',
  },
  {
    name: 'PAYGATE_COLLECT_DATA_THRESHOLDS',
    type: '`none` or a comma list of `<ISO 4217 code>:<minor units>`',
    default: '`USD:100000,EUR:100000` (1000 USD, 1000 EUR)',
    modes: 'all',
    description:
      "A payment whose amount reaches its currency's threshold requires the buyer's identity data (travel rule), as does every payment of a merchant created with `--collect-data`. `none`: only those merchants.",
  },
  {
    name: 'METRICS_PORT',
    type: 'integer 0–65535 (0: any free port)',
    default: 'none (served on `PORT`)',
    modes: 'all',
    description:
      'Serve `/metrics` on a separate port (on `HOST`) instead of the API port. Outside development, the API port serves it only with `METRICS_TOKEN` set.',
  },
  {
    name: 'METRICS_TOKEN',
    type: 'secret',
    default: 'none',
    modes: 'all',
    secret: true,
    description: 'When set, `/metrics` requires `Authorization: Bearer <token>`.',
  },
  {
    name: 'LOG_LEVEL',
    type: '`fatal`…`trace` \\| `silent`',
    default: '`info`',
    modes: 'all',
    description: 'pino log level.',
  },
  {
    name: 'LOG_FORMAT',
    type: '`json` \\| `pretty`',
    default: '`pretty` in development when stdout is a terminal, `json` otherwise',
    modes: 'all',
    description:
      'JSON lines (one per request and per job run) for log shippers; `pretty` (development only) for reading in a terminal.',
  },
];
