import type { Role } from '../../src/kernel/auth/roles';
import { rolePermitted } from '../../src/kernel/auth/roles';
import { Api } from './api';
import type { LoginAnswer } from './api-types';

export interface Session {
  token: string;
  user: LoginAnswer['user'];
  /** ms since the epoch when the token stops working. */
  expiresAt: number;
}

/** A web app as the sign-in sees it: who may use it (a policy's roles, `web/lib/apps.ts`) and what a refused account is told. */
export interface WebApp {
  roles: readonly Role[];
  refusal: string;
}

/** The account signed in, but its role may not use this app: nothing of the session is kept. */
export class AccessRefused extends Error {}

export interface SessionOptions {
  /** End the session when its token runs out, without waiting for the API's 401 (a screen left open all night). */
  endAtExpiry?: boolean;
  /** The API client's timeout for a request. */
  timeoutMs?: number;
}

/** setTimeout takes at most 2^31-1 ms (24.8 days): a later expiry is looked at again then. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The sign-in every web app shares: the session kept in `storage` under `key` (sessionStorage for
 * screens on shared computers, localStorage for the brigade phone, whose queue must outlive a closed
 * tab), never in a URL; the login request; the token replaced after a password change; the end of
 * the session (a 401 from the API, or the token running out); sign-out on this device; and whether
 * the account's role may use this app, from the policy. `api` sends the token and reports a 401 here.
 */
export class WebSession {
  readonly api: Api;
  /** Told when the session ended without the user signing out: the API refused the token, or it ran out. */
  onEnded: () => void = () => undefined;
  private session: Session | undefined;
  private expiryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly app: WebApp,
    private readonly storage: Storage,
    private readonly key: string,
    private readonly options: SessionOptions = {},
  ) {
    this.api = new Api({ token: () => this.session?.token, unauthorized: () => this.end() }, options.timeoutMs);
    try {
      const saved = JSON.parse(storage.getItem(key) ?? 'null') as Session | null;
      // A session that ran out, or one this app no longer admits (its role changed), is not restored.
      if (saved && saved.expiresAt > Date.now() && this.mayUse(saved.user.role)) this.keep(saved);
      else if (saved) storage.removeItem(key);
    } catch {
      storage.removeItem(key);
    }
  }

  get current(): Session | undefined {
    return this.session;
  }

  /** Whether an account of this role may use this app (the policy's roles; admins always). */
  mayUse(role: Role): boolean {
    return rolePermitted(role, this.app.roles);
  }

  /** Signs in: `ApiError` 401 for a wrong email or password, `AccessRefused` for a role this app is not for (then nothing is kept). */
  async signIn(email: string, password: string): Promise<Session> {
    const answer = await this.api.postPublic<LoginAnswer>('/api/auth/login', { email, password });
    if (!this.mayUse(answer.user.role)) {
      this.signOut();
      throw new AccessRefused(this.app.refusal);
    }
    return this.keep({ token: answer.token, user: answer.user, expiresAt: Date.now() + answer.expiresIn * 1000 });
  }

  /** A fresh token for the same user (a password change ends every earlier one). */
  renew(token: string, expiresIn: number): void {
    if (this.session) this.keep({ ...this.session, token, expiresAt: Date.now() + expiresIn * 1000 });
  }

  /** Forgets the session on this device only: the API's logout would end the account's other screens too. */
  signOut(): void {
    this.session = undefined;
    clearTimeout(this.expiryTimer);
    this.expiryTimer = undefined;
    this.storage.removeItem(this.key);
  }

  /** Ends every token of the account (all devices, sockets), then forgets it here; a failed request still signs out here. */
  async signOutEverywhere(): Promise<void> {
    if (this.session) await this.api.post('/api/auth/logout').catch(() => undefined);
    this.signOut();
  }

  private keep(session: Session): Session {
    this.session = session;
    this.storage.setItem(this.key, JSON.stringify(session));
    if (this.options.endAtExpiry) this.watchExpiry();
    return session;
  }

  private watchExpiry(): void {
    clearTimeout(this.expiryTimer);
    const left = (this.session?.expiresAt ?? 0) - Date.now();
    this.expiryTimer = setTimeout(() => (Date.now() >= (this.session?.expiresAt ?? 0) ? this.end() : this.watchExpiry()), Math.min(Math.max(0, left), MAX_TIMER_MS));
  }

  private end(): void {
    if (!this.session) return;
    this.signOut();
    this.onEnded();
  }
}
