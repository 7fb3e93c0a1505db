/**
 * The web apps' shared sign-in (web/lib/session.ts), without a browser: the session kept and
 * restored from storage, the login request, the roles each app admits taken from the policies,
 * the end of a session (the API's 401, the token running out), the token replaced after a password
 * change, sign-out here and everywhere, and what a sign-in form says when it fails.
 */
import { rolePermitted, ROLES } from '../../src/kernel/auth/roles';
import { gotvPolicy } from '../../src/modules/gotv/gotv.policy';
import { ApiError, NetworkError } from '../../web/lib/api';
import { WEB_APPS } from '../../web/lib/apps';
import { AccessRefused, WebSession, type Session } from '../../web/lib/session';
import { signInFailure } from '../../web/lib/sign-in-failure';

/** sessionStorage / localStorage as the browser has them, in memory. */
class MemoryStorage implements Storage {
  private items = new Map<string, string>();
  get length() {
    return this.items.size;
  }
  clear() {
    this.items.clear();
  }
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  key(index: number) {
    return [...this.items.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
}

const KEY = 'comando.test';
const user = (role: Session['user']['role']) => ({ id: '0190a4c8-0000-7000-8000-000000000001', name: 'Ana', email: 'ana@example.org', role }) as Session['user'];

/** The requests the session made, and the answers the test gives them. */
let sent: { method: string; url: string; authorization: string | undefined; body: unknown }[];
let answers: Response[];
const realFetch = globalThis.fetch;

beforeEach(() => {
  sent = [];
  answers = [];
  globalThis.fetch = (async (url: string, init: RequestInit) => {
    const headers = init.headers as Record<string, string>;
    sent.push({ method: init.method!, url, authorization: headers.Authorization, body: init.body ? JSON.parse(init.body as string) : undefined });
    const answer = answers.shift();
    if (!answer) throw new TypeError('Failed to fetch');
    return answer;
  }) as typeof fetch;
});

afterEach(() => {
  globalThis.fetch = realFetch;
  jest.useRealTimers();
});

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const loginAnswer = (role: Session['user']['role'], expiresIn = 3600) => json(200, { token: `token-${role}`, expiresIn, user: user(role) });
const unauthorized = () => json(401, { type: 'about:blank', title: 'Unauthorized', status: 401, code: 'unauthorized', detail: 'Sign in again.' });

describe('who may use each app', () => {
  it('takes the war room’s and the brigade app’s roles from the GOTV policy, and admits every role to the console', () => {
    expect(WEB_APPS.warRoom.roles).toBe(gotvPolicy.roles('followWarRoom'));
    expect(WEB_APPS.brigada.roles).toBe(gotvPolicy.roles('reportAt'));
    const storage = new MemoryStorage();
    for (const role of ROLES) {
      expect(new WebSession(WEB_APPS.warRoom, storage, KEY).mayUse(role)).toBe(rolePermitted(role, gotvPolicy.roles('followWarRoom')));
      expect(new WebSession(WEB_APPS.brigada, storage, KEY).mayUse(role)).toBe(rolePermitted(role, gotvPolicy.roles('reportAt')));
      expect(new WebSession(WEB_APPS.console, storage, KEY).mayUse(role)).toBe(true);
    }
    // As the policy says today: viewers watch the war room but do not report; brigade members report but do not watch.
    const warRoom = new WebSession(WEB_APPS.warRoom, storage, KEY);
    const brigada = new WebSession(WEB_APPS.brigada, storage, KEY);
    expect([warRoom.mayUse('viewer'), warRoom.mayUse('brigade'), warRoom.mayUse('admin')]).toEqual([true, false, true]);
    expect([brigada.mayUse('viewer'), brigada.mayUse('brigade'), brigada.mayUse('admin')]).toEqual([false, true, true]);
  });
});

describe('signing in', () => {
  it('keeps the session in its storage and restores it on the next page load', async () => {
    const storage = new MemoryStorage();
    const session = new WebSession(WEB_APPS.brigada, storage, KEY);
    answers.push(loginAnswer('brigade'));
    const started = await session.signIn('ana@example.org', 'secret password');
    expect(sent).toEqual([{ method: 'POST', url: '/api/auth/login', authorization: undefined, body: { email: 'ana@example.org', password: 'secret password' } }]);
    expect(started.token).toBe('token-brigade');
    expect(started.expiresAt).toBeGreaterThan(Date.now() + 3500_000);
    expect(JSON.parse(storage.getItem(KEY)!)).toEqual(started);
    const reopened = new WebSession(WEB_APPS.brigada, storage, KEY);
    expect(reopened.current).toEqual(started);
    // The API client sends its token.
    answers.push(json(200, { ok: true }));
    await reopened.api.get('/api/gotv/voters');
    expect(sent[1]!.authorization).toBe('Bearer token-brigade');
  });

  it('refuses an account whose role may not use the app, keeping nothing', async () => {
    const storage = new MemoryStorage();
    const session = new WebSession(WEB_APPS.warRoom, storage, KEY);
    answers.push(loginAnswer('brigade'));
    const refusal = await session.signIn('ana@example.org', 'secret password').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AccessRefused);
    expect(signInFailure(refusal)).toBe('Esta cuenta no tiene acceso a la sala de situación.');
    expect(session.current).toBeUndefined();
    expect(storage.getItem(KEY)).toBeNull();
  });

  it('says a wrong password is wrong, without ending anything', async () => {
    const session = new WebSession(WEB_APPS.warRoom, new MemoryStorage(), KEY);
    const ended = jest.fn();
    session.onEnded = ended;
    answers.push(unauthorized());
    const refusal = await session.signIn('ana@example.org', 'wrong').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApiError);
    expect(signInFailure(refusal)).toBe('Correo o contraseña incorrectos.');
    expect(ended).not.toHaveBeenCalled();
    // No network: the form says so (the brigade phone needs it to sign in).
    const offline = await session.signIn('ana@example.org', 'secret password').catch((error: unknown) => error);
    expect(offline).toBeInstanceOf(NetworkError);
    expect(signInFailure(offline)).toBe('Sin conexión: para ingresar se necesita red.');
    expect(signInFailure(new ApiError(503, undefined))).toBe('No se pudo ingresar. Intente de nuevo.');
  });

  it('does not restore a session that ran out, is unreadable, or whose role the app no longer admits', () => {
    const storage = new MemoryStorage();
    const saved = (role: Session['user']['role'], expiresAt: number) => storage.setItem(KEY, JSON.stringify({ token: 't', user: user(role), expiresAt }));
    saved('manager', Date.now() - 1000);
    expect(new WebSession(WEB_APPS.warRoom, storage, KEY).current).toBeUndefined();
    expect(storage.getItem(KEY)).toBeNull();
    saved('brigade', Date.now() + 60_000);
    expect(new WebSession(WEB_APPS.warRoom, storage, KEY).current).toBeUndefined();
    expect(storage.getItem(KEY)).toBeNull();
    storage.setItem(KEY, '{not json');
    expect(new WebSession(WEB_APPS.warRoom, storage, KEY).current).toBeUndefined();
    expect(storage.getItem(KEY)).toBeNull();
    saved('viewer', Date.now() + 60_000);
    expect(new WebSession(WEB_APPS.warRoom, storage, KEY).current?.user.role).toBe('viewer');
  });
});

describe('the end of a session', () => {
  async function signedIn(options = {}) {
    const storage = new MemoryStorage();
    const session = new WebSession(WEB_APPS.console, storage, KEY, options);
    answers.push(loginAnswer('manager'));
    await session.signIn('ana@example.org', 'secret password');
    const ended = jest.fn();
    session.onEnded = ended;
    return { storage, session, ended };
  }

  it('ends when the API refuses the token: forgotten, and told once however many requests were refused', async () => {
    const { storage, session, ended } = await signedIn();
    answers.push(unauthorized(), unauthorized());
    await expect(session.api.get('/api/people')).rejects.toBeInstanceOf(ApiError);
    await expect(session.api.get('/api/people')).rejects.toBeInstanceOf(ApiError);
    expect(ended).toHaveBeenCalledTimes(1);
    expect(session.current).toBeUndefined();
    expect(storage.getItem(KEY)).toBeNull();
  });

  it('a 403 or a 5xx leaves the session as it is', async () => {
    const { session, ended } = await signedIn();
    answers.push(json(403, { code: 'forbidden' }), json(503, { code: 'busy' }));
    await expect(session.api.get('/api/finance')).rejects.toMatchObject({ status: 403 });
    await expect(session.api.get('/api/finance')).rejects.toMatchObject({ status: 503 });
    expect(ended).not.toHaveBeenCalled();
    expect(session.current).toBeDefined();
  });

  it('ends when the token runs out, with endAtExpiry; a renewed token moves the end', async () => {
    jest.useFakeTimers({ now: Date.now() });
    const { session, ended } = await signedIn({ endAtExpiry: true });
    jest.advanceTimersByTime(1800_000);
    session.renew('renewed', 3600);
    expect(session.current?.token).toBe('renewed');
    jest.advanceTimersByTime(1800_001);
    expect(ended).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1800_000);
    expect(ended).toHaveBeenCalledTimes(1);
    expect(session.current).toBeUndefined();
  });

  it('without endAtExpiry (the offline phone), waits for the API to say so', async () => {
    jest.useFakeTimers({ now: Date.now() });
    const { session, ended } = await signedIn();
    jest.advanceTimersByTime(7200_000);
    expect(ended).not.toHaveBeenCalled();
    expect(session.current).toBeDefined();
  });

  it('signs out here only, or everywhere through the API; neither is told as an ended session', async () => {
    const { storage, session, ended } = await signedIn({ endAtExpiry: true });
    session.signOut();
    expect(session.current).toBeUndefined();
    expect(storage.getItem(KEY)).toBeNull();
    expect(sent).toHaveLength(1);
    answers.push(loginAnswer('manager'));
    await session.signIn('ana@example.org', 'secret password');
    answers.push(new Response(null, { status: 204 }));
    await session.signOutEverywhere();
    expect(sent[2]).toMatchObject({ method: 'POST', url: '/api/auth/logout', authorization: 'Bearer token-manager' });
    expect(session.current).toBeUndefined();
    expect(ended).not.toHaveBeenCalled();
  });
});
