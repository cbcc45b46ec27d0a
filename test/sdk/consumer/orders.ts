// The merchant's own order store, which the README's examples import (copied into the consumer project).
import type { PaymentStatus } from '@paygate/sdk-merchant';

export interface Order {
  id: string;
  totalCents: string;
  paymentId: string | null;
}

export const orders = {
  async get(id: string): Promise<Order> {
    return { id, totalCents: '1250', paymentId: null };
  },
  async setPaymentId(_orderId: string, _paymentId: string): Promise<void> {},
  async setPaymentStatus(_referenceId: string, _status: PaymentStatus, _version: number): Promise<void> {},
  async fulfil(_referenceId: string, _live: boolean): Promise<void> {},
};
