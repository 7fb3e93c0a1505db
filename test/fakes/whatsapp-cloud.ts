import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from '../helpers/wait';

/**
 * A local stand-in for the WhatsApp Business Cloud API (Graph API): it checks the bearer token and
 * the request shapes of `POST /{version}/{phone-number-id}/messages` and
 * `POST /{version}/{waba-id}/message_templates`, answers like Meta (wamid ids, Graph error
 * envelopes, 130429 when over its throughput), records every accepted send (the ground truth for
 * "exactly once"), and posts signed webhooks back, retrying while the receiver is down, as Meta does.
 */

export interface FakeCloudOptions {
  token: string;
  appSecret: string;
  phoneNumberId: string;
  wabaId: string;
  version?: string;
  /**
   * Messages per second accepted before answering 130429: a token bucket refilled at this rate
   * that tolerates a burst of 2 % of it (Meta does not publish its exact accounting).
   */
  ratePerSecond?: number;
  /** Statuses posted back for each accepted message, in this order (e.g. ['sent', 'delivered']). */
  statuses?: ('sent' | 'delivered' | 'read')[];
  /** Approve created templates by webhook after this many ms (undefined: stay PENDING). */
  approveTemplatesAfterMs?: number;
  /** Milliseconds before answering a send. */
  latencyMs?: number;
  /** Concurrent webhook deliveries. */
  webhookConcurrency?: number;
}

export interface AcceptedSend {
  to: string;
  wamid: string;
  opaque: string | undefined;
  type: 'template' | 'text';
  template?: { name: string; language: string; params: string[] };
  text?: string;
  at: number;
}

type Payload = Record<string, unknown>;

function graphError(code: number, message: string) {
  return {
    error: {
      message: `(#${code}) ${message}`,
      type: 'OAuthException',
      code,
      error_data: { messaging_product: 'whatsapp', details: message },
      fbtrace_id: randomBytes(8).toString('hex'),
    },
  };
}

export function signBody(appSecret: string, body: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(body, 'utf8').digest('hex')}`;
}

export class FakeWhatsAppCloud {
  readonly accepted: AcceptedSend[] = [];
  readonly templates: Payload[] = [];
  readonly rejected: { status: number; code: number }[] = [];
  /** Recipient (digits) → permanent error code answered synchronously. */
  readonly failFor = new Map<string, { code: number; message: string }>();
  /** While set, every send answers this error, whoever it is to (an account-level problem). */
  failEverySend: { code: number; message: string } | undefined;
  /** Template creations answer this error while set (e.g. 100 invalid parameter). */
  rejectTemplatesWith: { code: number; message: string } | undefined;
  /** The next n sends answer this retryable error. */
  private throttle: { remaining: number; code: number; status: number } | undefined;
  private bucket = { tokens: 0, at: Date.now() };
  private readonly webhookQueue: string[] = [];
  private webhookActive = 0;
  private webhookUrl: string | undefined;
  private closed = false;
  private server: http.Server | undefined;
  url = '';
  webhooksDelivered = 0;

  constructor(private readonly options: FakeCloudOptions) {}

  async start(): Promise<this> {
    this.server = http.createServer((request, response) => void this.route(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  setWebhookUrl(url: string | undefined): void {
    this.webhookUrl = url;
    this.pumpWebhooks();
  }

  throttleNext(count: number, code = 130429, status = 400): void {
    this.throttle = { remaining: count, code, status };
  }

  sendsTo(phoneDigits: string): AcceptedSend[] {
    return this.accepted.filter((send) => send.to === phoneDigits);
  }

  /** Recipients that got more than one message. */
  duplicates(): string[] {
    const seen = new Map<string, number>();
    for (const send of this.accepted) seen.set(send.to, (seen.get(send.to) ?? 0) + 1);
    return [...seen].filter(([, count]) => count > 1).map(([to]) => to);
  }

  /** Queues a signed webhook delivery (retried until the receiver answers 200). */
  postWebhook(payload: Payload): void {
    this.webhookQueue.push(JSON.stringify(payload));
    this.pumpWebhooks();
  }

  envelope(field: string, value: Payload): Payload {
    return { object: 'whatsapp_business_account', entry: [{ id: this.options.wabaId, changes: [{ field, value }] }] };
  }

  statusPayload(send: Pick<AcceptedSend, 'wamid' | 'to' | 'opaque'>, status: string, errors?: Payload[]): Payload {
    return this.envelope('messages', {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550783881', phone_number_id: this.options.phoneNumberId },
      statuses: [
        {
          id: send.wamid,
          status,
          timestamp: String(Math.floor(Date.now() / 1000)),
          recipient_id: send.to,
          ...(send.opaque ? { biz_opaque_callback_data: send.opaque } : {}),
          ...(errors ? { errors } : {}),
        },
      ],
    });
  }

  inboundPayload(from: string, message: Payload, name = 'Ana'): Payload {
    return this.envelope('messages', {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550783881', phone_number_id: this.options.phoneNumberId },
      contacts: [{ profile: { name }, wa_id: from }],
      messages: [{ from, id: `wamid.IN${randomBytes(10).toString('hex')}`, timestamp: String(Math.floor(Date.now() / 1000)), ...message }],
    });
  }

  /** Resolves once every queued webhook was delivered. */
  async webhooksDrained(timeoutMs = 30_000): Promise<void> {
    await until(() => !this.webhookQueue.length && !this.webhookActive, timeoutMs, `the webhooks to drain (${this.webhookQueue.length} queued)`);
  }

  async close(): Promise<void> {
    this.closed = true;
    await new Promise<void>((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }

  private answer(response: http.ServerResponse, status: number, body: unknown): void {
    response.writeHead(status, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify(body));
  }

  private async route(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const version = this.options.version ?? 'v23.0';
    if (request.headers.authorization !== `Bearer ${this.options.token}`) return this.answer(response, 401, graphError(190, 'Invalid OAuth access token'));
    if (!String(request.headers['content-type']).startsWith('application/json')) return this.answer(response, 400, graphError(100, 'Invalid content type'));
    let body: Payload;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Payload;
    } catch {
      return this.answer(response, 400, graphError(100, 'Invalid JSON'));
    }
    if (request.method === 'POST' && request.url === `/${version}/${this.options.phoneNumberId}/messages`) return this.send(body, response);
    if (request.method === 'POST' && request.url === `/${version}/${this.options.wabaId}/message_templates`) return this.createTemplate(body, response);
    return this.answer(response, 400, graphError(100, `Unknown path components: ${request.url}`));
  }

  private invalid(response: http.ServerResponse, message: string): void {
    this.rejected.push({ status: 400, code: 100 });
    this.answer(response, 400, graphError(100, `Invalid parameter: ${message}`));
  }

  private async send(body: Payload, response: http.ServerResponse): Promise<void> {
    if (this.options.latencyMs) await new Promise((resolve) => setTimeout(resolve, this.options.latencyMs));
    if (body.messaging_product !== 'whatsapp') return this.invalid(response, 'messaging_product');
    const to = body.to;
    if (typeof to !== 'string' || !/^\d{8,15}$/.test(to)) return this.invalid(response, 'to');
    if (body.biz_opaque_callback_data !== undefined && (typeof body.biz_opaque_callback_data !== 'string' || body.biz_opaque_callback_data.length > 512))
      return this.invalid(response, 'biz_opaque_callback_data');
    let content: Pick<AcceptedSend, 'type' | 'template' | 'text'>;
    if (body.type === 'text') {
      const text = body.text as { body?: unknown } | undefined;
      if (typeof text?.body !== 'string' || !text.body) return this.invalid(response, 'text.body');
      content = { type: 'text', text: text.body };
    } else if (body.type === 'template') {
      const template = body.template as { name?: unknown; language?: { code?: unknown }; components?: unknown } | undefined;
      if (typeof template?.name !== 'string' || typeof template.language?.code !== 'string') return this.invalid(response, 'template');
      const components = (template.components ?? []) as { type?: unknown; parameters?: { type?: unknown; text?: unknown }[] }[];
      if (!Array.isArray(components)) return this.invalid(response, 'template.components');
      const bodyComponent = components.find((component) => component.type === 'body');
      const params = (bodyComponent?.parameters ?? []).map((parameter) => (parameter.type === 'text' && typeof parameter.text === 'string' ? parameter.text : null));
      if (params.some((param) => param === null || param === '')) return this.invalid(response, 'template parameters must be non-empty text');
      content = { type: 'template', template: { name: template.name, language: template.language.code, params: params as string[] } };
    } else return this.invalid(response, 'type');

    if (this.throttle && this.throttle.remaining > 0) {
      this.throttle.remaining--;
      this.rejected.push({ status: this.throttle.status, code: this.throttle.code });
      return this.answer(response, this.throttle.status, graphError(this.throttle.code, 'Rate limit hit'));
    }
    const now = Date.now();
    const rate = this.options.ratePerSecond;
    if (rate) {
      const capacity = Math.max(1, rate / 50);
      this.bucket.tokens = Math.min(capacity, this.bucket.tokens + ((now - this.bucket.at) / 1000) * rate);
      this.bucket.at = now;
      if (this.bucket.tokens < 1) {
        this.rejected.push({ status: 429, code: 130429 });
        return this.answer(response, 429, graphError(130429, 'Rate limit hit'));
      }
    }
    const failure = this.failEverySend ?? this.failFor.get(to);
    if (failure) {
      this.rejected.push({ status: 400, code: failure.code });
      return this.answer(response, 400, graphError(failure.code, failure.message));
    }
    if (rate) this.bucket.tokens -= 1;
    const send: AcceptedSend = { to, wamid: `wamid.${randomBytes(16).toString('base64url')}`, opaque: body.biz_opaque_callback_data as string | undefined, ...content, at: now };
    this.accepted.push(send);
    this.answer(response, 200, { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id: send.wamid }] });
    for (const status of this.options.statuses ?? []) this.postWebhook(this.statusPayload(send, status));
  }

  private createTemplate(body: Payload, response: http.ServerResponse): void {
    if (this.rejectTemplatesWith) return this.answer(response, 400, graphError(this.rejectTemplatesWith.code, this.rejectTemplatesWith.message));
    if (typeof body.name !== 'string' || !/^[a-z][a-z0-9_]*$/.test(body.name)) return this.invalid(response, 'name');
    if (typeof body.language !== 'string' || !['MARKETING', 'UTILITY', 'AUTHENTICATION'].includes(String(body.category))) return this.invalid(response, 'language or category');
    const components = body.components as { type?: string; text?: string; example?: { body_text?: string[][] } }[] | undefined;
    const bodyComponent = Array.isArray(components) ? components.find((component) => component.type === 'BODY') : undefined;
    if (!bodyComponent?.text || bodyComponent.text.length > 1024) return this.invalid(response, 'components.BODY');
    const variables = new Set([...bodyComponent.text.matchAll(/\{\{(\d+)\}\}/g)].map((match) => match[1]));
    if (variables.size && bodyComponent.example?.body_text?.[0]?.length !== variables.size) return this.invalid(response, 'BODY example');
    const id = String(1_000_000_000_000 + this.templates.length);
    this.templates.push({ ...body, id });
    this.answer(response, 200, { id, status: 'PENDING', category: body.category });
    if (this.options.approveTemplatesAfterMs !== undefined) {
      setTimeout(
        () =>
          this.postWebhook(
            this.envelope('message_template_status_update', {
              event: 'APPROVED',
              message_template_id: Number(id),
              message_template_name: body.name,
              message_template_language: body.language,
              reason: 'NONE',
            }),
          ),
        this.options.approveTemplatesAfterMs,
      );
    }
  }

  private pumpWebhooks(): void {
    const limit = this.options.webhookConcurrency ?? 8;
    while (!this.closed && this.webhookUrl && this.webhookActive < limit && this.webhookQueue.length) {
      const body = this.webhookQueue.shift()!;
      this.webhookActive++;
      void this.deliver(body).finally(() => {
        this.webhookActive--;
        this.pumpWebhooks();
      });
    }
  }

  private async deliver(body: string): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      const url = this.webhookUrl;
      if (url) {
        try {
          const response = await fetch(url, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signBody(this.options.appSecret, body) },
            body,
          });
          await response.arrayBuffer();
          if (response.ok) {
            this.webhooksDelivered++;
            return;
          }
        } catch {
          // The receiver is down: like Meta, keep the delivery and try again.
        }
      }
      // The fake's own back-off between deliveries, like Meta's (time is what it imitates).
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 1000)));
    }
  }
}
