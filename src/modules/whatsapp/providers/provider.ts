import type { TemplateButton, TemplateCategory, TemplateStatus } from '../whatsapp.entities';

/** One message to hand to the provider; `messageId` is ours and comes back in status webhooks. */
export interface OutboundMessage {
  messageId: string;
  /** E.164, e.g. +573001234567. */
  to: string;
  content: { type: 'template'; name: string; language: string; params: string[] } | { type: 'text'; body: string };
}

/**
 * What became of a send. `in_doubt` means the request may have reached the provider (a timeout
 * after it left, a reset connection): it must not be sent again blindly, only reconciled from
 * webhooks. `retry` is for answers that say for certain nothing was sent (rate limits, outages).
 */
export type SendResult =
  | { outcome: 'accepted'; wamid: string }
  | { outcome: 'retry'; code: number; title: string; throttle: Throttle }
  | { outcome: 'failed'; code: number; title: string }
  | { outcome: 'in_doubt'; reason: string };

/** number: the phone number's throughput; pair: this recipient only; app: API call budget; transient: an outage. */
export type Throttle = 'number' | 'pair' | 'app' | 'transient';

export interface TemplateDraft {
  name: string;
  language: string;
  category: TemplateCategory;
  body: string;
  header: string | null;
  footer: string | null;
  buttons: TemplateButton[];
  examples: string[];
}

export interface CreatedTemplate {
  providerTemplateId: string;
  status: TemplateStatus;
}

/**
 * A WhatsApp Business Solution Provider. Campaigns and conversations only see this interface,
 * so another BSP can be added beside the Cloud API without touching them.
 */
export interface WhatsAppProvider {
  readonly name: string;
  send(message: OutboundMessage): Promise<SendResult>;
  createTemplate(draft: TemplateDraft): Promise<CreatedTemplate>;
  /** Stops timers (the simulator's); the HTTP client has none. */
  close?(): void;
}

/** The provider refused a template or a call outright (bad credentials, invalid payload). */
export class ProviderError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/**
 * Cloud API error codes and what a sender does about them (Meta's error-code reference and
 * throughput guide): slow down and retry on throughput and pair limits, retry on outages, never
 * on anything else (invalid number, re-engagement window, policy).
 */
const RETRYABLE: Record<number, Throttle> = {
  130429: 'number', // throughput (messages per second) exceeded for the phone number
  131056: 'pair', // (business, consumer) pair rate limit
  4: 'app', // application request limit
  80007: 'app', // WhatsApp Business Account rate limit
  131057: 'transient', // account in maintenance (throughput upgrade)
  1: 'transient', // API unknown
  2: 'transient', // API service temporarily unavailable
  131000: 'transient', // something went wrong
  131016: 'transient', // service unavailable
  133004: 'transient', // server temporarily unavailable
};

export function classifyError(code: number, title: string): SendResult {
  const throttle = RETRYABLE[code];
  return throttle ? { outcome: 'retry', code, title, throttle } : { outcome: 'failed', code, title };
}

/** Placeholders `{{1}}..{{n}}` filled in for the text we keep of a template message. */
export function renderTemplate(body: string, params: string[]): string {
  return body.replace(/\{\{(\d+)\}\}/g, (whole, index: string) => params[Number(index) - 1] ?? whole);
}
