/** A real HTTP server over a runtime with the given chains (or none), validating responses against the contracts. */
import { pino } from 'pino';
import { createApp, createRuntime, openDatabase } from '@paygate/server';
import type { Chains } from '../../server/src/chains/index.js';
import { testConfig } from '../helpers/config.js';
import { listen, type Listening } from '../helpers/http.js';

export async function devServer(chains: Chains | null): Promise<Listening> {
  const db = openDatabase('sqlite::memory:');
  const runtime = await createRuntime({
    config: testConfig(),
    db,
    logger: pino({ level: 'silent' }),
    chains: chains ?? undefined,
  });
  const server = await listen(createApp({ runtime, validateResponses: true }));
  return {
    url: server.url,
    close: async () => {
      await server.close();
      await runtime.close();
      await db.close();
    },
  };
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
