import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { roleSchema } from '../schemas';
import type { Role } from './roles';

export const TOKEN_ISSUER = 'comando';
export const TOKEN_AUDIENCE = 'comando-api';
const ALGORITHM = 'HS256';

/**
 * Claims Comando puts in its access tokens; `ver` is the user's token version (revocation), `sid`
 * the signed-in device's session (an admin may end it alone). Tokens issued before sessions were
 * kept have no `sid`: they stand on the version alone until they expire.
 */
const claimsSchema = z.object({
  sub: z.string().uuid(),
  role: roleSchema,
  ver: z.number().int().nonnegative(),
  sid: z.string().uuid().optional(),
  iat: z.number(),
  exp: z.number(),
});
export type TokenClaims = z.infer<typeof claimsSchema>;

export interface IssuedToken {
  token: string;
  expiresIn: number;
}

/**
 * Tokens already verified, by their exact text: a brigade phone sends the same token with every
 * report, and checking its signature again (an HMAC, base64 and JSON decoding) was a tenth of a
 * report's CPU. The text determines the verdict, so a remembered one is as good as a new check;
 * expiry is still checked on every use, and revocation is the principal's token version, checked
 * per request elsewhere. Only valid tokens are kept, the oldest dropped first.
 */
const VERIFIED_TOKENS_KEPT = 5000;

export class TokenService {
  private readonly verified = new Map<string, TokenClaims>();

  /**
   * A prepared key: given a string, jsonwebtoken first tries to parse it as a PEM public key on
   * every verify (about 0.4 ms of CPU per request) before treating it as an HMAC secret.
   */
  private readonly secret: KeyObject;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.secret = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  /** The token lasts `ttlSeconds`: a session row made for it should expire with it. */
  get ttl(): number {
    return this.ttlSeconds;
  }

  issue(subject: { id: string; role: Role; tokenVersion: number }, sessionId?: string): IssuedToken {
    const token = jwt.sign({ role: subject.role, ver: subject.tokenVersion, ...(sessionId ? { sid: sessionId } : {}) }, this.secret, {
      algorithm: ALGORITHM,
      expiresIn: this.ttlSeconds,
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
      subject: subject.id,
    });
    return { token, expiresIn: this.ttlSeconds };
  }

  /** The claims of a valid token, or undefined: wrong signature, algorithm, issuer, audience, expired. */
  verify(token: string): TokenClaims | undefined {
    const known = this.verified.get(token);
    if (known) {
      if (known.exp * 1000 > Date.now()) return known;
      this.verified.delete(token);
      return undefined;
    }
    const claims = this.verifySignature(token);
    if (claims) {
      if (this.verified.size >= VERIFIED_TOKENS_KEPT) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, Object.freeze(claims));
    }
    return claims;
  }

  private verifySignature(token: string): TokenClaims | undefined {
    try {
      const decoded = jwt.verify(token, this.secret, {
        algorithms: [ALGORITHM],
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
      });
      const claims = claimsSchema.safeParse(decoded);
      return claims.success ? claims.data : undefined;
    } catch {
      return undefined;
    }
  }
}
