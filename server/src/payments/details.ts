/**
 * What was sold (issue 35 §1, docs/decisions.md §30.1–§30.2): a payment's description, line items, buyer and
 * metadata. Checked here (the contract's rules again, for callers that do not come through the validator, plus the
 * one it cannot say: the lines add up to the amount), stored on the payment row as JSON text, the buyer sealed.
 */
import type { SecretBox } from '../crypto/secretBox.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/merchant.js';

export type LineItem = components['schemas']['LineItem'];
export type SnapshotLineItem = components['schemas']['SnapshotLineItem'];
export type PaymentBuyer = components['schemas']['PaymentBuyer'];
export type PaymentMetadata = components['schemas']['PaymentMetadata'];

/** The details of a new payment, checked, in the snapshot's shape. */
export interface PaymentDetails {
  description: string | null;
  lineItems: SnapshotLineItem[];
  buyer: PaymentBuyer | null;
  metadata: PaymentMetadata;
}

export const NO_DETAILS: PaymentDetails = { description: null, lineItems: [], buyer: null, metadata: {} };

// Stripe's limits for metadata; the contract's for the rest (openapi/components/schemas).
const MAX_DESCRIPTION = 1000;
const MAX_LINES = 100;
const MAX_LINE_NAME = 200;
const MAX_QUANTITY = 1_000_000;
const MAX_METADATA_KEYS = 50;
const MAX_METADATA_VALUE = 500;
const MAX_BUYER_NAME = 200;
const MAX_EMAIL = 254;
const METADATA_KEY = /^[A-Za-z0-9_.-]{1,40}$/;
const UNIT_AMOUNT = /^(0|[1-9][0-9]{0,14})$/;
// A rough shape check only: the validator applies `format: email` first; this keeps obvious junk out of other callers.
const EMAIL = /^[^\s@]+@[^\s@]+$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1F\x7F]/;
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_NEWLINE = /[\x00-\x09\x0B-\x1F\x7F]/;

function invalid(message: string): ApiError {
  return new ApiError('params_validation', message);
}

const length = (s: string) => [...s].length;

export interface DetailsInput {
  description?: string;
  lineItems?: LineItem[];
  buyer?: PaymentBuyer;
  metadata?: PaymentMetadata;
}

/** Checks a create's details against `amountValue` (minor units); answers them in the snapshot's shape. */
export function checkDetails(input: DetailsInput, amountValue: string): PaymentDetails {
  const { description, lineItems, buyer, metadata } = input;
  if (description !== undefined) {
    const n = length(description);
    if (n < 1 || n > MAX_DESCRIPTION || CONTROL_BUT_NEWLINE.test(description)) {
      throw invalid(
        `description must be 1 to ${MAX_DESCRIPTION} characters without control characters but line breaks.`,
      );
    }
  }
  const lines = lineItems === undefined ? [] : checkLines(lineItems, amountValue);
  return {
    description: description ?? null,
    lineItems: lines,
    buyer: buyer === undefined ? null : checkBuyer(buyer),
    metadata: metadata === undefined ? {} : checkMetadata(metadata),
  };
}

function checkLines(items: LineItem[], amountValue: string): SnapshotLineItem[] {
  if (items.length < 1 || items.length > MAX_LINES) throw invalid(`lineItems must hold 1 to ${MAX_LINES} lines.`);
  let sum = 0n;
  const lines = items.map((item, i) => {
    const n = length(item.name);
    if (n < 1 || n > MAX_LINE_NAME || CONTROL.test(item.name)) {
      throw invalid(`lineItems[${i}].name must be 1 to ${MAX_LINE_NAME} characters without control characters.`);
    }
    if (!Number.isSafeInteger(item.quantity) || item.quantity < 1 || item.quantity > MAX_QUANTITY) {
      throw invalid(`lineItems[${i}].quantity must be a whole number from 1 to ${MAX_QUANTITY}.`);
    }
    if (!UNIT_AMOUNT.test(item.unitAmount)) {
      throw invalid(`lineItems[${i}].unitAmount must be a decimal integer string of at most 15 digits.`);
    }
    sum += BigInt(item.quantity) * BigInt(item.unitAmount);
    return { name: item.name, quantity: item.quantity, unit_amount: item.unitAmount };
  });
  // Exact, in minor units: a total that is off by one cent is a bug in the merchant's cart, not rounding to absorb.
  if (sum !== BigInt(amountValue)) {
    throw invalid(
      `lineItems add up to ${sum} (the sum of quantity × unitAmount) but amount.value is ${amountValue}: they must be equal.`,
    );
  }
  return lines;
}

function checkBuyer(buyer: PaymentBuyer): PaymentBuyer {
  const { email, name } = buyer;
  if (email === undefined && name === undefined) throw invalid('buyer must have an email, a name or both.');
  if (email !== undefined && (email.length > MAX_EMAIL || !EMAIL.test(email))) {
    throw invalid(`buyer.email must be an email address of at most ${MAX_EMAIL} characters.`);
  }
  if (name !== undefined && (length(name) < 1 || length(name) > MAX_BUYER_NAME || CONTROL.test(name))) {
    throw invalid(`buyer.name must be 1 to ${MAX_BUYER_NAME} characters without control characters.`);
  }
  return { ...(email !== undefined && { email }), ...(name !== undefined && { name }) };
}

function checkMetadata(metadata: PaymentMetadata): PaymentMetadata {
  const entries = Object.entries(metadata);
  if (entries.length > MAX_METADATA_KEYS) throw invalid(`metadata may hold at most ${MAX_METADATA_KEYS} keys.`);
  for (const [key, value] of entries) {
    if (!METADATA_KEY.test(key))
      throw invalid(`metadata key "${key.slice(0, 40)}" must be 1 to 40 of A-Z a-z 0-9 _ . -`);
    if (typeof value !== 'string' || length(value) > MAX_METADATA_VALUE) {
      throw invalid(`metadata.${key} must be a string of at most ${MAX_METADATA_VALUE} characters.`);
    }
  }
  return Object.fromEntries(entries);
}

/** The columns of `payments` that hold the details (db/migrations/020_payment_details.ts). */
export interface DetailColumns {
  description: string | null;
  line_items: string | null;
  metadata: string | null;
  buyer_sealed: string | null;
}

export const buyerContext = (paymentId: string) => `payments.buyer_sealed:${paymentId}`;

export function detailColumns(box: SecretBox, paymentId: string, details: PaymentDetails): DetailColumns {
  return {
    description: details.description,
    line_items: details.lineItems.length ? JSON.stringify(details.lineItems) : null,
    metadata: Object.keys(details.metadata).length ? JSON.stringify(details.metadata) : null,
    buyer_sealed: details.buyer ? box.seal(JSON.stringify(details.buyer), buyerContext(paymentId)) : null,
  };
}

/** The snapshot's four fields from the columns; the buyer is opened only when there is one. */
export function detailsOf(box: Pick<SecretBox, 'open'>, row: DetailColumns & { id: string }): PaymentDetails {
  return {
    description: row.description,
    lineItems: row.line_items ? (JSON.parse(row.line_items) as SnapshotLineItem[]) : [],
    buyer: row.buyer_sealed ? (JSON.parse(box.open(row.buyer_sealed, buyerContext(row.id))) as PaymentBuyer) : null,
    metadata: row.metadata ? (JSON.parse(row.metadata) as PaymentMetadata) : {},
  };
}
