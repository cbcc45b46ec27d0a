/**
 * The stored envelope of an event (`events.payload`), sealed when its payment has a buyer (docs/decisions.md §30.3):
 * the outbox keeps every event of a payment for its history, replays and timeline, and a buyer's email and name must
 * not sit there in plaintext. Events of payments without a buyer keep a plaintext payload: no cost on the common
 * path. Everything that reads a stored payload goes through `openEventPayload`.
 */
import type { SecretBox } from '../crypto/secretBox.js';

export const eventPayloadContext = (eventId: string) => `events.payload_sealed:${eventId}`;

/** The columns of a sealed event: `payload` is '' (never parsed by anyone who forgot to open it). */
export function sealedEventPayload(
  box: Pick<SecretBox, 'seal'>,
  envelope: { id: string },
): { payload: string; payload_sealed: string } {
  return { payload: '', payload_sealed: box.seal(JSON.stringify(envelope), eventPayloadContext(envelope.id)) };
}

/** The envelope's JSON text, from the two columns. */
export function openEventPayload(
  box: Pick<SecretBox, 'open'>,
  eventId: string,
  stored: { payload: string; payload_sealed?: string | null },
): string {
  return stored.payload_sealed ? box.open(stored.payload_sealed, eventPayloadContext(eventId)) : stored.payload;
}
