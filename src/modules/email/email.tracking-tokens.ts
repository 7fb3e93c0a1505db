import { createCipheriv, createDecipheriv, createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

/**
 * Tracking tokens for the open pixel, click redirects and unsubscribe links.
 *
 * 16 bytes of payload — kind, recipient id (64-bit), link index, five zero bytes — encrypted as
 * one AES-256 block (so the token reveals neither the recipient nor how many messages exist),
 * followed by a 12-byte HMAC-SHA-256 tag over the ciphertext (so it cannot be forged or
 * enumerated: 2^96 guesses per hit). 28 bytes → 38 base64url characters. Checking one needs no
 * database read.
 */
export type TokenKind = 'open' | 'click' | 'unsubscribe' | 'notice_unsubscribe';
/** `notice_unsubscribe` carries an email notice's id instead of a recipient's. */
const KIND_BYTE: Record<TokenKind, number> = { open: 1, click: 2, unsubscribe: 3, notice_unsubscribe: 4 };
const TAG_BYTES = 12;
const TOKEN_BYTES = 16 + TAG_BYTES;
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{38}$/;

export interface TokenPayload {
  kind: TokenKind;
  recipientId: bigint;
  linkIndex: number;
}

export class TrackingTokens {
  // Key objects, made once: given a Buffer, Node 24 imports the key again on every call, which
  // costs more than the cipher and the MAC together.
  private readonly encryptionKey: KeyObject;
  private readonly macKey: KeyObject;

  /** `secret`: EMAIL_TRACKING_SECRET, or a key derived from the process's signing secret. */
  constructor(secret: Buffer | string) {
    this.encryptionKey = createSecretKey(createHmac('sha256', secret).update('comando:email-token:enc').digest());
    this.macKey = createSecretKey(createHmac('sha256', secret).update('comando:email-token:mac').digest());
  }

  sign(kind: TokenKind, recipientId: bigint | string, linkIndex = 0): string {
    const block = Buffer.alloc(16);
    block[0] = KIND_BYTE[kind];
    block.writeBigUInt64BE(BigInt(recipientId), 1);
    block.writeUInt16BE(linkIndex, 9);
    const cipher = createCipheriv('aes-256-ecb', this.encryptionKey, null).setAutoPadding(false);
    const sealed = Buffer.concat([cipher.update(block), cipher.final()]);
    return Buffer.concat([sealed, this.tag(sealed)]).toString('base64url');
  }

  /** The payload, or undefined for anything not minted here for this kind (forged, truncated, edited). */
  verify(kind: TokenKind, token: string): TokenPayload | undefined {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const bytes = Buffer.from(token, 'base64url');
    if (bytes.length !== TOKEN_BYTES) return undefined;
    const sealed = bytes.subarray(0, 16);
    if (!timingSafeEqual(bytes.subarray(16), this.tag(sealed))) return undefined;
    const decipher = createDecipheriv('aes-256-ecb', this.encryptionKey, null).setAutoPadding(false);
    const block = Buffer.concat([decipher.update(sealed), decipher.final()]);
    if (block[0] !== KIND_BYTE[kind] || block.subarray(11).some((byte) => byte !== 0)) return undefined;
    return { kind, recipientId: block.readBigUInt64BE(1), linkIndex: block.readUInt16BE(9) };
  }

  private tag(sealed: Buffer): Buffer {
    return createHmac('sha256', this.macKey).update(sealed).digest().subarray(0, TAG_BYTES);
  }
}
