import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';

/**
 * A real SMTP server on 127.0.0.1 for tests and benchmarks (smtp-server), keeping what it
 * receives (raw and parsed with mailparser). Chosen recipients can be answered with a 4xx or
 * 5xx at RCPT TO, a number of times or for ever, like a real MX would.
 */
export interface ReceivedMessage {
  envelopeFrom: string;
  to: string[];
  raw: string;
  parsed: ParsedMail | undefined;
  /** Raw header lines, unfolded (mailparser merges List-* headers). */
  header(name: string): string[];
}

interface Rejection {
  code: number;
  message: string;
  /** How many more times to reject; Infinity for always. */
  times: number;
}

export interface FakeSmtpOptions {
  /** Parse every message with mailparser (off in benchmarks: only count). */
  parse?: boolean;
  /** Keep messages in memory (off in benchmarks). */
  keep?: boolean;
  /** Wait this long before answering each DATA (a slow server, to stop a sender mid-campaign). */
  delayMs?: number;
}

function headerLines(raw: string, name: string): string[] {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const prefix = `${name.toLowerCase()}:`;
  return unfolded
    .split(/\r?\n/)
    .filter((line) => line.toLowerCase().startsWith(prefix))
    .map((line) => line.slice(prefix.length).trim());
}

export class FakeSmtp {
  readonly messages: ReceivedMessage[] = [];
  /** Messages accepted, kept or not. */
  accepted = 0;
  /** RCPT TO answers with an error, by address. */
  readonly rejectedAttempts = new Map<string, number>();
  /** While set, every RCPT TO is answered with this code, whoever it is for (relaying denied, say). */
  rejectEveryone: { code: number; message: string } | undefined;
  private readonly rejections = new Map<string, Rejection>();
  private readonly server: SMTPServer;
  private readonly waiters: { count: number; resolve: () => void }[] = [];
  port = 0;

  constructor(private readonly options: FakeSmtpOptions = {}) {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      size: 10 * 1024 * 1024,
      onRcptTo: (address: SMTPServerAddress, _session: SMTPServerSession, callback: (error?: Error) => void) => {
        const email = address.address.toLowerCase();
        const rejection = this.rejectEveryone ? { ...this.rejectEveryone, times: 1 } : this.rejections.get(email);
        if (rejection && rejection.times > 0) {
          rejection.times--;
          this.rejectedAttempts.set(email, (this.rejectedAttempts.get(email) ?? 0) + 1);
          const error = new Error(rejection.message) as Error & { responseCode: number };
          error.responseCode = rejection.code;
          return callback(error);
        }
        callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('error', (error: Error) => callback(error));
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const answer = () =>
            void this.receive(Buffer.concat(chunks), session).then(
              () => callback(),
              (error: Error) => callback(error),
            );
          if (this.options.delayMs) setTimeout(answer, this.options.delayMs);
          else answer();
        });
      },
    });
    // A sender killed mid-session (the crash tests SIGKILL one) resets its connection; a real
    // server logs that and carries on, and an 'error' event nobody listens to would end the test run.
    this.server.on('error', () => undefined);
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Answer RCPT TO for this address with `code` (e.g. 550 hard, 452 soft), `times` times. */
  reject(address: string, code: number, times = Infinity): void {
    const text = code >= 500 ? '5.1.1 User unknown' : '4.2.2 Mailbox full, try again later';
    this.rejections.set(address.toLowerCase(), { code, message: text, times });
  }

  to(address: string): ReceivedMessage[] {
    return this.messages.filter((message) => message.to.includes(address.toLowerCase()));
  }

  /** Resolves once `count` messages in total have been accepted. */
  waitFor(count: number, timeoutMs = 20_000): Promise<void> {
    if (this.accepted >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fake SMTP: ${this.accepted}/${count} messages after ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  private async receive(data: Buffer, session: SMTPServerSession): Promise<void> {
    const keep = this.options.keep ?? true;
    if (keep) {
      const raw = data.toString('utf8');
      const parsed = (this.options.parse ?? true) ? await simpleParser(data) : undefined;
      this.messages.push({
        envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
        raw,
        parsed,
        header: (name) => headerLines(raw, name),
      });
    }
    this.accepted++;
    for (const waiter of [...this.waiters]) {
      if (this.accepted >= waiter.count) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }
}
