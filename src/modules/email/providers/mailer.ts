import nodemailer, { type Transporter } from 'nodemailer';
import type { EmailConfig } from '../../../config';
import type { FileArea, FileStore } from '../../../kernel/file-store';

/**
 * The SMTP side: one pooled nodemailer transport per drain of the sender (SMTP_URL), or, with no
 * SMTP_URL, the embedded default that writes each message as an .eml file in the file store's `outbox` area.
 */
export interface OutgoingMessage {
  fromName: string;
  fromEmail: string;
  to: string;
  replyTo: string | null;
  subject: string;
  /** Null: a text-only message. */
  html: string | null;
  text: string;
  messageId: string;
  /** Null: no List-Unsubscribe headers (a staff member's test send, which goes to no contact). */
  unsubscribeUrl: string | null;
  /** Correlates a later DSN with the campaign, without personal data; null for a notice to one person. */
  campaignId: string | null;
}

export type SendOutcome =
  | { kind: 'sent' }
  /** 5xx for the recipient: the address does not take mail; suppress it. */
  | { kind: 'bounced'; detail: string }
  /** 5xx for the message itself (content, size): do not retry, but the address may be fine. */
  | { kind: 'failed'; detail: string }
  /** 4xx or a connection problem: try again later. */
  | { kind: 'retry'; detail: string };

export interface Mailer {
  send(message: OutgoingMessage): Promise<SendOutcome>;
  close(): void;
}

/** RFC 8058 wants the one-click header covered by the DKIM signature; nodemailer's default list lacks it. */
export const DKIM_SIGNED_HEADERS = 'from:sender:reply-to:subject:date:message-id:to:cc:mime-version:content-type:content-transfer-encoding:list-unsubscribe:list-unsubscribe-post';

interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

/** Sanitised for storage: SMTP replies may quote the address; keep the code and the words after it. */
function describe(error: SmtpError): string {
  const text = (error.response ?? error.message ?? error.code ?? 'error').replace(/<[^>]*>/g, '<…>').replace(/\S+@\S+/g, '…');
  return text.slice(0, 200);
}

export function classify(error: unknown): SendOutcome {
  const smtp = (error ?? {}) as SmtpError;
  const code = smtp.responseCode;
  if (code !== undefined && code >= 500 && code < 600) {
    return smtp.code === 'EENVELOPE' ? { kind: 'bounced', detail: describe(smtp) } : { kind: 'failed', detail: describe(smtp) };
  }
  return { kind: 'retry', detail: describe(smtp) };
}

function mailOptions(message: OutgoingMessage, mailto: string | undefined) {
  const base = {
    from: { name: message.fromName, address: message.fromEmail },
    to: message.to,
    replyTo: message.replyTo ?? undefined,
    subject: message.subject,
    html: message.html ?? undefined,
    text: message.text,
    messageId: message.messageId,
  };
  if (message.unsubscribeUrl === null) return { ...base, headers: message.campaignId ? { 'X-Comando-Campaign': message.campaignId } : {} };
  const unsubscribe = mailto ? [[message.unsubscribeUrl, `mailto:${mailto}?subject=unsubscribe`]] : [[message.unsubscribeUrl]];
  return {
    ...base,
    list: { unsubscribe: unsubscribe as unknown as string[] },
    headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', ...(message.campaignId ? { 'X-Comando-Campaign': message.campaignId } : {}) },
  };
}

export const outboxArea = (files: FileStore): FileArea => files.area('outbox');

export function createMailer(config: EmailConfig, files: FileStore): Mailer {
  const dkim = config.dkim ? { ...config.dkim, headerFieldNames: DKIM_SIGNED_HEADERS } : undefined;
  if (!config.smtpUrl) return new OutboxMailer(outboxArea(files), config.unsubscribeMailto, dkim);
  // The outbound engine paces sends and keeps at most maxConnections in flight: the pool needs no limit of its own.
  const transport = nodemailer.createTransport({
    url: config.smtpUrl,
    pool: true,
    maxConnections: config.maxConnections,
    maxMessages: 500,
    dkim,
  } as never);
  return new SmtpMailer(transport, config.unsubscribeMailto);
}

class SmtpMailer implements Mailer {
  constructor(
    private readonly transport: Transporter,
    private readonly mailto: string | undefined,
  ) {}

  async send(message: OutgoingMessage): Promise<SendOutcome> {
    try {
      const info = await this.transport.sendMail(mailOptions(message, this.mailto));
      const rejected = info.rejectedErrors?.[0] as SmtpError | undefined;
      if ((info.accepted ?? []).length === 0 && rejected) return classify({ ...rejected, code: 'EENVELOPE' });
      return { kind: 'sent' };
    } catch (error) {
      return classify(error);
    }
  }

  close(): void {
    this.transport.close();
  }
}

/** The outbox's name for the message with this Message-ID: the person's erasure finds their files by it. */
export function outboxName(messageId: string): string {
  return `${messageId
    .replace(/[<>]/g, '')
    .replace(/[^A-Za-z0-9@._-]/g, '_')
    .replace(/^\./, '_')}.eml`;
}

/** Embedded default: nodemailer builds the exact message (DKIM included) and it lands in a file. */
class OutboxMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(
    private readonly outbox: FileArea,
    private readonly mailto: string | undefined,
    dkim: object | undefined,
  ) {
    this.transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows', dkim } as never);
  }

  async send(message: OutgoingMessage): Promise<SendOutcome> {
    const info = (await this.transport.sendMail(mailOptions(message, this.mailto))) as unknown as { message: Buffer };
    await this.outbox.put(outboxName(message.messageId), info.message);
    return { kind: 'sent' };
  }

  close(): void {
    this.transport.close();
  }
}
