import type { WhatsAppConfig } from '../../../config';
import type { TemplateStatus } from '../whatsapp.entities';
import { classifyError, ProviderError, type CreatedTemplate, type OutboundMessage, type SendResult, type TemplateDraft, type WhatsAppProvider } from './provider';

interface GraphError {
  error?: { code?: number; message?: string; error_data?: { details?: string } };
}

/** Errors that prove the request never left this machine: safe to try again. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function causeCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

const TEMPLATE_STATUS: Record<string, TemplateStatus> = { APPROVED: 'APPROVED', REJECTED: 'REJECTED', PAUSED: 'PAUSED', DISABLED: 'DISABLED' };

/** WhatsApp Business Cloud API (Meta Graph API) over HTTPS with Node's fetch. */
export class CloudApiProvider implements WhatsAppProvider {
  readonly name = 'cloud';

  constructor(private readonly config: WhatsAppConfig) {}

  private url(node: string, edge: string): string {
    return `${this.config.baseUrl}/${this.config.apiVersion}/${node}/${edge}`;
  }

  private post(url: string, body: unknown): Promise<Response> {
    return fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.config.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.config.sendTimeoutSeconds * 1000),
    });
  }

  async send(message: OutboundMessage): Promise<SendResult> {
    const payload = {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: message.to.replace(/^\+/, ''),
      biz_opaque_callback_data: message.messageId,
      ...(message.content.type === 'text'
        ? { type: 'text', text: { preview_url: false, body: message.content.body } }
        : {
            type: 'template',
            template: {
              name: message.content.name,
              language: { code: message.content.language, policy: 'deterministic' },
              components: message.content.params.length ? [{ type: 'body', parameters: message.content.params.map((text) => ({ type: 'text', text })) }] : [],
            },
          }),
    };
    let response: Response;
    try {
      response = await this.post(this.url(this.config.phoneNumberId!, 'messages'), payload);
    } catch (error) {
      const code = causeCode(error);
      if (code && NOT_SENT_CODES.has(code)) return { outcome: 'retry', code: 0, title: `connection failed (${code})`, throttle: 'transient' };
      // A timeout or a reset after the request left: Meta may have accepted it.
      return { outcome: 'in_doubt', reason: (error as Error).name === 'TimeoutError' ? 'timeout' : (code ?? 'network error') };
    }
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (response.ok) {
      const wamid = (body as { messages?: { id?: unknown }[] } | undefined)?.messages?.[0]?.id;
      if (typeof wamid === 'string' && wamid) return { outcome: 'accepted', wamid };
      return { outcome: 'in_doubt', reason: 'accepted without a message id' };
    }
    const error = (body as GraphError | undefined)?.error;
    if (typeof error?.code === 'number') return classifyError(error.code, (error.message ?? 'error').slice(0, 200));
    // No Graph error body (a proxy's 502, say): nothing says whether Meta got it, except a 429.
    if (response.status === 429) return { outcome: 'retry', code: 429, title: 'HTTP 429', throttle: 'app' };
    if (response.status >= 500) return { outcome: 'in_doubt', reason: `HTTP ${response.status}` };
    return { outcome: 'failed', code: response.status, title: `HTTP ${response.status}` };
  }

  async createTemplate(draft: TemplateDraft): Promise<CreatedTemplate> {
    const components: unknown[] = [];
    if (draft.header) components.push({ type: 'HEADER', format: 'TEXT', text: draft.header });
    components.push({ type: 'BODY', text: draft.body, ...(draft.examples.length ? { example: { body_text: [draft.examples] } } : {}) });
    if (draft.footer) components.push({ type: 'FOOTER', text: draft.footer });
    if (draft.buttons.length) {
      components.push({
        type: 'BUTTONS',
        buttons: draft.buttons.map((button) =>
          button.type === 'URL'
            ? { type: 'URL', text: button.text, url: button.url }
            : button.type === 'PHONE_NUMBER'
              ? { type: 'PHONE_NUMBER', text: button.text, phone_number: button.phoneNumber }
              : { type: 'QUICK_REPLY', text: button.text },
        ),
      });
    }
    const response = await this.post(this.url(this.config.wabaId!, 'message_templates'), {
      name: draft.name,
      language: draft.language,
      category: draft.category,
      components,
    });
    const body = (await response.json().catch(() => ({}))) as GraphError & { id?: unknown; status?: unknown };
    if (!response.ok || typeof body.id !== 'string') {
      throw new ProviderError(body.error?.code ?? response.status, (body.error?.message ?? `HTTP ${response.status}`).slice(0, 200));
    }
    return { providerTemplateId: body.id, status: TEMPLATE_STATUS[String(body.status)] ?? 'PENDING' };
  }
}
