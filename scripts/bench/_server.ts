/**
 * A server process for the API benchmark, so the load generator does not share an event loop with it.
 * argv: bare | paygate <DATABASE_URL>. Prints one JSON line {url, apiKey?, merchantId?, paymentId?} when ready.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { pino } from 'pino';
import { createApp, createRuntime, loadConfig } from '@paygate/server';
import { mintKey } from '../../server/src/accounts/keys.js';
import { insertApiKey, insertMerchant, insertPartner } from '../../server/src/db/queries/accounts.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';

const [mode, databaseUrl] = process.argv.slice(2);

async function main(): Promise<void> {
  let app: express.Express;
  let extra: Record<string, string> = {};
  if (mode === 'bare') {
    // The baseline: the same framework and JSON body parsing, no work.
    app = express();
    app.use(express.json());
    app.post('/bare', (req, res) => res.status(201).json({ ok: true, echo: req.body?.referenceId ?? null }));
    app.get('/bare', (_req, res) => res.json({ status: 'pending', isFinal: false }));
  } else {
    const config = loadConfig({
      PAYGATE_ENV: 'development',
      DATABASE_URL: databaseUrl!,
      LOG_LEVEL: 'silent',
      PAYGATE_RATE_LIMIT_RPS: '1000000',
      PAYGATE_RATE_LIMIT_BURST: '1000000',
      PAYGATE_DATA_DIR: '.tmp/bench',
    });
    const runtime = await createRuntime({ config, logger: pino({ level: 'silent' }) });
    const knex = runtime.db.knex;
    await insertPartner(knex, { id: 'ptn_bench00000000000', name: 'Bench', created_at: Date.now() });
    await insertMerchant(knex, {
      id: 'mer_bench00000000000',
      partner_id: 'ptn_bench00000000000',
      name: 'Bench',
      icon_url: null,
      fee_config: null,
      settlement_addresses: {},
      collect_data: false,
      require_two_factor: false,
      settlement_mode: 'direct',
      created_at: Date.now(),
    });
    const key = mintKey('merchant', 'test');
    await insertApiKey(knex, {
      id: 'key_bench00000000000',
      kind: 'merchant',
      mode: 'test',
      prefix: key.prefix,
      hash: key.hash,
      partner_id: 'ptn_bench00000000000',
      label: null,
      pinned_version: '2026-02-18',
      created_at: Date.now(),
      revoked_at: null,
      merchant_id: null,
      last_used_at: null,
    });
    const payment = await createPayment(runtime, {
      merchantId: 'mer_bench00000000000',
      live: false,
      referenceId: 'bench',
      amount: { unit: 'iso4217/USD', value: '1250' },
      expiresAt: Date.now() + 86_400_000,
      successUrl: null,
      errorUrl: null,
    });
    app = createApp({ runtime });
    extra = { apiKey: key.secret, merchantId: 'mer_bench00000000000', paymentId: payment.id };
  }
  const server = createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${port}`, ...extra }) + '\n');
}

await main();
process.on('SIGINT', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
