import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { roleSchema, type Role } from './roles';

export const TOKEN_ISSUER = 'comando';
export const TOKEN_AUDIENCE = 'comando-api';
const ALGORITHM = 'HS256';

/** Claims Comando puts in its access tokens; `ver` is the user's token version (revocation). */
const claimsSchema = z.object({
  sub: z.string().uuid(),
  role: roleSchema,
  ver: z.number().int().nonnegative(),
  iat: z.number(),
  exp: z.number(),
});
export type TokenClaims = z.infer<typeof claimsSchema>;

export interface IssuedToken {
  token: string;
  expiresIn: number;
}

export class TokenService {
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

  issue(subject: { id: string; role: Role; tokenVersion: number }): IssuedToken {
    const token = jwt.sign({ role: subject.role, ver: subject.tokenVersion }, this.secret, {
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
