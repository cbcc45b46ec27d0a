/**
 * The merchant's webhook receiver, over HTTPS with the run's certificate: verifies each delivery with
 * @paygate/webhook-verifier, answers 204, and keeps, per event id, when it first arrived and how long after the
 * event's creation (the delay a merchant sees).
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Webhook, type WebhookEvent } from '@paygate/webhook-verifier';
import type { Tls } from './tls.js';

export interface Received {
  event: WebhookEvent;
  at: number;
  delayMs: number;
}

export interface Receiver {
  url: string;
  events: Map<string, Received>;
  deliveries: number;
  refused: number;
  useSecret(secret: string): void;
  close(): Promise<void>;
}

export async function startReceiver(tls: Tls): Promise<Receiver> {
  let webhook: Webhook | null = null;
  const events = new Map<string, Received>();
  const state = { deliveries: 0, refused: 0 };
  const server = createServer({ cert: readFileSync(tls.cert), key: readFileSync(tls.key) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.deliveries++;
      const body = Buffer.concat(chunks).toString('utf8');
      let event: WebhookEvent;
      try {
        if (!webhook) throw new Error('no secret yet');
        event = webhook.verify(body, req.headers as Record<string, string>);
      } catch {
        state.refused++;
        res.writeHead(400).end();
        return;
      }
      if (!events.has(event.id)) {
        const at = Date.now();
        events.set(event.id, { event, at, delayMs: at - Date.parse(event.created_at) });
      }
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/paygate`,
    events,
    get deliveries() {
      return state.deliveries;
    },
    get refused() {
      return state.refused;
    },
    useSecret: (secret) => (webhook = new Webhook(secret)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
