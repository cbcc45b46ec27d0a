/**
 * Money movements through the merchant API, in the merchant's audit log beside the dashboard's changes
 * (docs/decisions.md §22.13): an on-chain refund asked for, a claim link cancelled. The actor is the API key's id
 * (never its secret); the details are the payment, the amount and the kind of destination — no address, no client
 * address, nothing personal. Written after the change commits, as the dashboard's entries are: a failed write is
 * logged, and the change stands.
 */
import type { Logger } from 'pino';
import type { OnchainRefund } from '../settlement/refunds.js';
import { recordAudit, type AuditDeps } from './auditLog.js';

export interface MerchantApiActor {
  merchantId: string;
  live: boolean;
  keyId: string;
}

export async function auditRefund(
  deps: AuditDeps & { logger: Logger },
  actor: MerchantApiActor,
  action: 'refundPayment' | 'cancelRefund',
  paymentId: string,
  refund: OnchainRefund,
): Promise<void> {
  try {
    await recordAudit(deps, {
      merchantId: actor.merchantId,
      mode: actor.live ? 'live' : 'test',
      actor: { kind: 'api_key', id: actor.keyId },
      action,
      target: action === 'refundPayment' ? `id=${paymentId}` : `id=${refund.refund_id}`,
      details: {
        paymentId,
        refundId: refund.refund_id,
        amount: refund.amount.value,
        unit: refund.amount.unit,
        networkFee: refund.network_fee?.value ?? null,
        // Whether the paying wallet receives it or whoever holds a claim link names the address.
        destination: refund.claim_expires_at === null ? 'paying_wallet' : 'claim_link',
        state: refund.state,
      },
      ip: null,
    });
  } catch (err) {
    deps.logger.error({ err, action, refundId: refund.refund_id }, 'audit entry not written');
  }
}
