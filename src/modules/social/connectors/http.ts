import { z } from 'zod';
import { ConnectorError } from './connector';

/** What time it is for the connectors; tests pass a fixed one to check quota resets. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

export interface JsonReply {
  status: number;
  ok: boolean;
  headers: Headers;
  /** The parsed body; undefined when it was empty or not JSON (a proxy's HTML error page). */
  body: unknown;
}

export function parseJsonSafely(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function causeCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

/** Every failure to get an answer is worth retrying for a read: nothing was changed on the platform. */
export function networkFailure(label: string, error: unknown): ConnectorError {
  // Read by shape, not instanceof: the abort's DOMException may come from another realm (a test sandbox).
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  if (name === 'TimeoutError' || name === 'AbortError') return new ConnectorError('transient', `${label}: no answer in time`);
  const reason = causeCode(error) ?? (typeof message === 'string' && message ? message : 'network error');
  return new ConnectorError('transient', `${label}: connection failed (${reason})`);
}

/** One GET whose answer is read whole within the timeout; network failures become `transient` errors. */
export async function getJson(url: string, options: { label: string; timeoutSeconds: number; headers?: Record<string, string> }): Promise<JsonReply> {
  try {
    const response = await fetch(url, {
      headers: { Accept: 'application/json', ...options.headers },
      signal: AbortSignal.timeout(options.timeoutSeconds * 1000),
    });
    const text = await response.text();
    return { status: response.status, ok: response.ok, headers: response.headers, body: parseJsonSafely(text) };
  } catch (error) {
    throw networkFailure(options.label, error);
  }
}

/** `Retry-After` is either a number of seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now: Date): Date | undefined {
  const trimmed = value?.trim();
  if (!trimmed) return undefined;
  if (/^\d+$/.test(trimmed)) return new Date(now.getTime() + Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : new Date(date);
}

/** Checks a successful answer against the documented shape; anything else is `bad_response`, never guessed at. */
export function parseShape<T>(schema: z.ZodType<T>, body: unknown, label: string): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ConnectorError('bad_response', `${label}: unexpected answer (${issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid'})`);
}

/** An ISO 8601 instant; Graph writes offsets without a colon (`+0000`), which Date.parse does not promise to read. */
export const instant = z.string().transform((value, context) => {
  const parsed = Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  if (Number.isNaN(parsed)) {
    context.addIssue({ code: 'custom', message: `not a date: ${value}` });
    return z.NEVER;
  }
  return new Date(parsed);
});

/** Error messages from platforms are kept short: they end up in logs and on the dashboard. */
export function shortMessage(label: string, message: string | undefined, status: number): string {
  return `${label}: ${message ?? `HTTP ${status}`}`.slice(0, 300);
}
