/**
 * Encryption at rest for webhook signing secrets and collected personal data: AES-256-GCM with a random 96-bit
 * nonce. Every ciphertext names the key that sealed it (`v1.<keyId>.<nonce>.<ciphertext+tag>`), so the
 * encryption key can be rotated: new data uses the first key, old data still opens with the key it names.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

export class SecretBox {
  private readonly byId: Map<string, Buffer>;

  constructor(private readonly keys: EncryptionKey[]) {
    if (keys.length === 0) throw new Error('SecretBox needs at least one key');
    for (const k of keys) if (k.key.length !== 32) throw new Error(`encryption key ${k.id} is not 32 bytes`);
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  /** `context` binds a ciphertext to where it is stored (e.g. the endpoint id), so it cannot be moved elsewhere. */
  seal(plaintext: string, context = ''): string {
    const { id, key } = this.keys[0]!;
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from(`${id}|${context}`, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v1.${id}.${nonce.toString('base64url')}.${body.toString('base64url')}`;
  }

  open(sealed: string, context = ''): string {
    const parts = sealed.split('.');
    if (parts.length !== 4 || parts[0] !== 'v1') throw new Error('not a sealed value');
    const [, id, nonceText, bodyText] = parts as [string, string, string, string];
    const key = this.byId.get(id);
    if (!key) throw new Error(`sealed with unknown key id "${id}": add it to PAYGATE_ENCRYPTION_KEY`);
    const body = Buffer.from(bodyText, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonceText, 'base64url'));
    decipher.setAAD(Buffer.from(`${id}|${context}`, 'utf8'));
    decipher.setAuthTag(body.subarray(body.length - 16));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
  }

  /** The id of the key that sealed a value: a re-encryption job looks for values not sealed with the active key. */
  static keyIdOf(sealed: string): string | null {
    const parts = sealed.split('.');
    return parts.length === 4 && parts[0] === 'v1' ? parts[1]! : null;
  }

  get activeKeyId(): string {
    return this.keys[0]!.id;
  }
}
