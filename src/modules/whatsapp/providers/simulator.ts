import { randomBytes, randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import type { CreatedTemplate, OutboundMessage, SendResult, TemplateDraft, WhatsAppProvider } from './provider';

type Deliver = (payload: unknown) => Promise<void>;

const PHONE_NUMBER_ID = '100000000000001';
const WABA_ID = '100000000000002';

const REPLIES = ['Gracias por la información', '¿Dónde es el evento?', 'Cuenten conmigo', 'BAJA'];

/**
 * The embedded default when no Cloud API credentials are configured: accepts every message and,
 * like Meta, later reports `sent`, `delivered` and usually `read` (a few numbers fail as not on
 * WhatsApp), and some people answer. Everything it reports goes through the same webhook handler
 * as real callbacks, as Cloud API-shaped payloads, so a demo shows the whole loop.
 */
export class SimulatorProvider implements WhatsAppProvider {
  readonly name = 'simulator';
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly deliver: Deliver,
    private readonly logger: Logger,
  ) {}

  async send(message: OutboundMessage): Promise<SendResult> {
    const wamid = `wamid.SIM${randomBytes(12).toString('hex')}`;
    const to = message.to.replace(/^\+/, '');
    const status = (status: string, errors?: unknown[]) => ({
      id: wamid,
      status,
      timestamp: String(Math.floor(Date.now() / 1000)),
      recipient_id: to,
      biz_opaque_callback_data: message.messageId,
      ...(errors ? { errors } : {}),
    });
    this.later(randomInt(200, 800), () => this.messages({ statuses: [status('sent')] }));
    if (randomInt(100) < 3) {
      this.later(randomInt(900, 2000), () => this.messages({ statuses: [status('failed', [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable' }])] }));
      return { outcome: 'accepted', wamid };
    }
    this.later(randomInt(900, 3000), () => this.messages({ statuses: [status('delivered')] }));
    if (randomInt(100) < 65) {
      const readAfter = randomInt(3000, 20_000);
      this.later(readAfter, () => this.messages({ statuses: [status('read')] }));
      if (randomInt(100) < 12) {
        const text = REPLIES[randomInt(REPLIES.length)]!;
        this.later(readAfter + randomInt(2000, 15_000), () =>
          this.messages({
            contacts: [{ profile: { name: 'Simulado' }, wa_id: to }],
            messages: [
              {
                from: to,
                id: `wamid.SIM${randomBytes(12).toString('hex')}`,
                timestamp: String(Math.floor(Date.now() / 1000)),
                type: 'text',
                text: { body: text },
                context: { from: PHONE_NUMBER_ID, id: wamid },
              },
            ],
          }),
        );
      }
    }
    return { outcome: 'accepted', wamid };
  }

  async createTemplate(draft: TemplateDraft): Promise<CreatedTemplate> {
    const providerTemplateId = String(randomInt(10 ** 12, 10 ** 13));
    this.later(2000, () =>
      this.deliver(
        this.envelope('message_template_status_update', {
          event: 'APPROVED',
          message_template_id: providerTemplateId,
          message_template_name: draft.name,
          message_template_language: draft.language,
          reason: 'NONE',
        }),
      ),
    );
    return { providerTemplateId, status: 'PENDING' };
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private messages(value: Record<string, unknown>): Promise<void> {
    return this.deliver(
      this.envelope('messages', { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550000000', phone_number_id: PHONE_NUMBER_ID }, ...value }),
    );
  }

  private envelope(field: string, value: unknown) {
    return { object: 'whatsapp_business_account', entry: [{ id: WABA_ID, changes: [{ field, value }] }] };
  }

  private later(ms: number, run: () => Promise<void>): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run().catch((error: unknown) => this.logger.warn({ errorName: (error as Error).name }, 'simulated whatsapp webhook failed'));
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }
}
