/** What the confirm mutation tests share: how a byte is altered, and what "refused, and nothing changed" means. */
import assert from 'node:assert/strict';
import type { Database } from '@paygate/server';
import { errorCodeValues } from '../../server/src/generated/gateway.js';

/** The ways one byte is altered: its low bit, its high bit, all clear, all set, or xor with a sampled value. */
export type BitClass = 'low' | 'high' | 'zero' | 'ones' | 'xor';

export function mutateByte(value: number, kind: BitClass, xor = 0x5a): number {
  switch (kind) {
    case 'low':
      return value ^ 0x01;
    case 'high':
      return value ^ 0x80;
    case 'zero':
      return value === 0 ? 0x01 : 0x00;
    case 'ones':
      return value === 0xff ? 0xfe : 0xff;
    case 'xor':
      return value ^ (xor || 0x01);
  }
}

/** The confirm was the caller's error: a 4xx whose code the contract lists. */
export async function expectRefused(res: Response, what: string): Promise<void> {
  const body = (await res.json()) as { code: string };
  assert.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status} ${JSON.stringify(body)}`);
  assert.ok((errorCodeValues as readonly string[]).includes(body.code), `${what}: code ${body.code}`);
}

/** The payment is as it was created: still payable, at version 0, with no claim. */
export async function expectPaymentUntouched(db: Database, paymentId: string): Promise<void> {
  const row = await db.knex('payments').where({ id: paymentId }).first('status', 'state_version');
  assert.deepEqual([row.status, Number(row.state_version)], ['requires_action', 0]);
  assert.equal((await db.knex('payment_claims').where({ payment_id: paymentId })).length, 0);
}
