import type { Problem } from './api-types';

/** An answer the API refused (4xx/5xx), with its problem+json when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
    /** Seconds the server asked to wait before sending again (`Retry-After` of a 429 or a 503 `busy`). */
    readonly retryAfter?: number,
  ) {
    super(problem?.detail ?? `HTTP ${status}`);
  }
}

/** The network failed or timed out: nothing reached the server, or its answer did not reach us. */
export class NetworkError extends Error {}

/** Where the client gets its token, and whom it tells that the API refused it (`WebSession`, web/lib/session.ts). */
export interface ApiAuth {
  token: () => string | undefined;
  /** An authenticated request was answered 401: the session has ended. */
  unauthorized: () => void;
}

/** The API client of a web app: JSON in and out, problem+json refusals as `ApiError`, the session's token on every request. */
export class Api {
  /** Told after every request whether the server answered (any status) or could not be reached: a screen's "Sin conexión". */
  onReachable: (reachable: boolean) => void = () => undefined;

  constructor(
    private readonly auth: ApiAuth,
    private readonly timeoutMs = 15_000,
  ) {}

  /** A request without the session's token, whose 401 says nothing about the session (signing in). */
  postPublic<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, body, false);
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  /** A file as the raw body, with its own type as Content-Type (an incident's photo, a receipt), or a JSON body (settings replaced whole, an email campaign rewritten). */
  put<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PUT', path, body);
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }

  /**
   * A file as the raw body of a POST, with its own type as Content-Type (a PQRS attachment, a
   * `text/csv` import whose options go in the query); `timeoutMs` for the answers that take longer than a click's (a big file).
   */
  postFile<T>(path: string, file: Blob, timeoutMs = this.timeoutMs): Promise<T> {
    return this.request<T>('POST', path, file, true, timeoutMs);
  }

  /** A multipart form (a CSV import with its fields): the browser writes the boundary. */
  upload<T>(path: string, form: FormData): Promise<T> {
    return this.request<T>('POST', path, form);
  }

  /** A file the API answers (a CSV export), fetched with the session's token rather than a token in a URL; a whole selection may take longer than `timeoutMs`'s default. */
  async download(path: string, timeoutMs = this.timeoutMs): Promise<Blob> {
    const response = await this.send('GET', path, undefined, true, timeoutMs);
    if (!response.ok) await this.refusal(response, true);
    return response.blob();
  }

  /** Every page of a keyset-paginated list (bounded: a screen never needs more than `max` items). */
  async all<T>(path: string, max = 2000): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const separator = path.includes('?') ? '&' : '?';
      const page: { data: T[]; nextCursor: string | null } = await this.get(`${path}${separator}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      items.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor && items.length < max);
    return items;
  }

  private async send(method: string, path: string, body: unknown, authenticated: boolean, timeoutMs = this.timeoutMs): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body !== undefined && !(body instanceof FormData)) headers['Content-Type'] = body instanceof Blob ? body.type : 'application/json';
    const token = authenticated ? this.auth.token() : undefined;
    if (token) headers.Authorization = `Bearer ${token}`;
    let response: Response;
    try {
      response = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : body instanceof Blob || body instanceof FormData ? body : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        cache: 'no-store',
      });
    } catch (error) {
      this.onReachable(false);
      throw new NetworkError((error as Error).message);
    }
    this.onReachable(true);
    return response;
  }

  private async refusal(response: Response, authenticated: boolean): Promise<never> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await response.text());
    } catch {
      parsed = undefined;
    }
    const problem = parsed && typeof parsed === 'object' && 'code' in parsed ? (parsed as Problem) : undefined;
    if (response.status === 401 && authenticated) this.auth.unauthorized();
    const retryAfter = Number(response.headers.get('Retry-After') ?? problem?.retryAfter);
    throw new ApiError(response.status, problem, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
  }

  private async request<T>(method: string, path: string, body?: unknown, authenticated = true, timeoutMs = this.timeoutMs): Promise<T> {
    const response = await this.send(method, path, body, authenticated, timeoutMs);
    if (!response.ok) return this.refusal(response, authenticated);
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    try {
      return (text ? JSON.parse(text) : undefined) as T;
    } catch {
      return undefined as T;
    }
  }
}

/** HH:MM in the campaign's time zone when given (the dashboard says which), else the device's. */
export function clock(date: Date = new Date(), timeZone?: string): string {
  return date.toLocaleTimeString('es-CO', { hour: '2-digit', minute: '2-digit', hour12: false, ...(timeZone ? { timeZone } : {}) });
}

export const number = new Intl.NumberFormat('es-CO');
