/**
 * What a process keeps between webhook attempts: built once per runtime (runtime.ts), handed to the delivery code
 * through its deps, never kept in a module. Each is a cost saved, never a rule: losing one costs work, not safety.
 */
import type { Knex } from 'knex';
import { Webhook } from '@paygate/webhook-verifier';
import type { SecretBox } from '../crypto/secretBox.js';
import { createDeliverySteps, type DeliverySteps } from '../db/queries/webhooks.js';
import { randomBase62 } from '../ids.js';
import { AgentPool } from './send.js';

/**
 * Opened signing keys, by sealed value: unsealing and key setup on every attempt would dominate the CPU cost of a
 * delivery. A rotated secret has a new sealed value, so stale entries are never used; the cap bounds memory.
 */
export class SignerCache {
  private readonly signers = new Map<string, Webhook>();

  constructor(private readonly secretBox: Pick<SecretBox, 'open'>) {}

  signer(sealed: string, context: string): Webhook {
    let webhook = this.signers.get(sealed);
    if (!webhook) {
      if (this.signers.size >= 1000) this.signers.delete(this.signers.keys().next().value!);
      webhook = new Webhook(this.secretBox.open(sealed, context));
      this.signers.set(sealed, webhook);
    }
    return webhook;
  }
}

export interface DeliveryParts {
  /** Claims and records of the attempts in flight, sharing round trips (db/queries/webhooks.ts). */
  steps: DeliverySteps;
  signers: SignerCache;
  /** Keep-alive connections by checked address (send.ts). */
  agents: AgentPool;
  /**
   * A lease owner: unique per attempt across processes (a random prefix per runtime) and within one (a counter),
   * without drawing random bytes on every attempt.
   */
  newLeaseOwner(): string;
}

export function createDeliveryParts(knex: Knex, secretBox: Pick<SecretBox, 'open'>): DeliveryParts {
  const prefix = randomBase62(12);
  let seq = 0;
  return {
    steps: createDeliverySteps(knex),
    signers: new SignerCache(secretBox),
    agents: new AgentPool(),
    newLeaseOwner: () => `${prefix}${(++seq).toString(36)}`,
  };
}
