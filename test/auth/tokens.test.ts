import jwt from 'jsonwebtoken';
import { TOKEN_AUDIENCE, TOKEN_ISSUER, TokenService } from '../../src/kernel/auth/tokens';

const SECRET = 'a-test-secret-a-test-secret-a-test-secret';
const subject = { id: '0190a000-0000-7000-8000-000000000001', role: 'brigade' as const, tokenVersion: 3 };

afterEach(() => jest.useRealTimers());

describe('TokenService.verify, with verified tokens remembered', () => {
  it('gives the same claims the second time, and refuses the token once it has expired', () => {
    jest.useFakeTimers({ now: new Date('2026-03-08T12:00:00Z') });
    const tokens = new TokenService(SECRET, 60);
    const { token } = tokens.issue(subject);
    const first = tokens.verify(token);
    expect(first).toMatchObject({ sub: subject.id, role: 'brigade', ver: 3 });
    expect(tokens.verify(token)).toEqual(first);
    jest.setSystemTime(new Date('2026-03-08T12:00:59Z'));
    expect(tokens.verify(token)).toEqual(first);
    jest.setSystemTime(new Date('2026-03-08T12:01:00Z'));
    expect(tokens.verify(token)).toBeUndefined();
    // Still refused once forgotten: the signature check itself sees the expiry.
    expect(tokens.verify(token)).toBeUndefined();
  });

  it('refuses a forged token even after the genuine one was remembered', () => {
    const tokens = new TokenService(SECRET, 600);
    const { token } = tokens.issue(subject);
    expect(tokens.verify(token)).toBeDefined();
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url')}.${signature}`;
    expect(tokens.verify(forged)).toBeUndefined();
    const otherSecret = jwt.sign({ role: 'admin', ver: 3 }, 'another-secret-another-secret-another', {
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
      subject: subject.id,
      expiresIn: 600,
    });
    expect(tokens.verify(otherSecret)).toBeUndefined();
  });

  it('keeps working past the number of tokens it remembers, and its claims cannot be changed by a caller', () => {
    const tokens = new TokenService(SECRET, 600);
    const issued = Array.from({ length: 5200 }, (_, i) => tokens.issue({ ...subject, tokenVersion: i }).token);
    for (const token of issued) expect(tokens.verify(token)).toBeDefined();
    // The first ones were dropped to make room: checked again, still valid, with their own claims.
    expect(tokens.verify(issued[0]!)?.ver).toBe(0);
    const claims = tokens.verify(issued[5199]!)!;
    expect(() => Object.assign(claims, { role: 'admin' })).toThrow(TypeError);
    expect(tokens.verify(issued[5199]!)?.role).toBe('brigade');
  });
});
