import pino from 'pino';
import {
  backoffMs,
  OutboundEngine,
  TokenBucket,
  type ChannelSettings,
  type Claimed,
  type ClaimRequest,
  type OutboundAdapter,
  type OutboundMessage,
  type Outcome,
  type Quota,
  type Settlement,
} from '../../src/kernel/outbound';
import { until } from '../helpers/wait';

/**
 * The outbound engine against an in-memory channel: the rows live in a Map, the claim and settle
 * statements are functions over it, and each test decides what the "provider" answers.
 */

interface Row {
  id: string;
  campaignId: string | null;
  status: 'queued' | 'sending' | 'sent' | 'failed' | 'in_doubt';
  attempts: number;
  nextAt: number;
  reason: string | null;
  counted: boolean;
}

interface Message extends OutboundMessage {
  counted: boolean;
}

type Send = (message: Message) => Promise<Outcome<string>>;

class MemoryChannel implements OutboundAdapter<Message, string> {
  readonly channel = 'memory';
  readonly room = 'memory-room';
  readonly rows = new Map<string, Row>();
  readonly campaigns = new Map<string, 'sending' | 'paused'>();
  readonly sends: { id: string; at: number }[] = [];
  readonly settles: Settlement<Message, string>[][] = [];
  readonly pauses: { campaignId: string; notice: string }[] = [];
  readonly claims: ClaimRequest[] = [];
  quota: Quota<Message> | undefined;
  exclusive: ((work: () => Promise<void>) => Promise<boolean>) | undefined;
  housekeeping = jest.fn(async (_drained: boolean) => undefined);

  constructor(
    readonly settings: ChannelSettings,
    private readonly answer: Send,
  ) {}

  add(count: number, options: { campaignId?: string | null; status?: Row['status']; counted?: boolean } = {}): string[] {
    const campaignId = options.campaignId === undefined ? 'c1' : options.campaignId;
    if (campaignId && !this.campaigns.has(campaignId)) this.campaigns.set(campaignId, 'sending');
    const ids: string[] = [];
    for (let n = 0; n < count; n++) {
      const id = `m${String(this.rows.size + 1).padStart(4, '0')}`;
      this.rows.set(id, { id, campaignId, status: options.status ?? 'queued', attempts: 0, nextAt: 0, reason: null, counted: options.counted ?? false });
      ids.push(id);
    }
    return ids;
  }

  status(id: string): Row['status'] {
    return this.rows.get(id)!.status;
  }

  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const row of this.rows.values()) out[row.status] = (out[row.status] ?? 0) + 1;
    return out;
  }

  private due(row: Row): boolean {
    return row.status === 'queued' && row.nextAt <= Date.now() && (row.campaignId === null || this.campaigns.get(row.campaignId) === 'sending');
  }

  async releaseOrphans(): Promise<number> {
    let n = 0;
    for (const row of this.rows.values()) {
      if (row.status === 'sending') {
        row.status = 'in_doubt';
        n++;
      }
    }
    return n;
  }

  async hasDueWork(): Promise<boolean> {
    return [...this.rows.values()].some((row) => this.due(row));
  }

  async claim(request: ClaimRequest): Promise<Claimed<Message>> {
    this.claims.push(request);
    let counted = 0;
    const messages: Message[] = [];
    for (const row of this.rows.values()) {
      if (messages.length >= request.limit) break;
      if (!this.due(row)) continue;
      if (row.counted && request.quota !== null && counted >= request.quota) continue;
      if (row.counted) counted++;
      row.status = 'sending';
      row.attempts++;
      messages.push({ id: row.id, campaignId: row.campaignId, attempt: row.attempts, counted: row.counted });
    }
    return { messages, skipped: 0 };
  }

  async send(message: Message): Promise<Outcome<string>> {
    this.sends.push({ id: message.id, at: performance.now() });
    return this.answer(message);
  }

  async settle(settlements: Settlement<Message, string>[]): Promise<void> {
    this.settles.push(settlements);
    for (const item of settlements) {
      const row = this.rows.get(item.message.id)!;
      if (row.status !== 'sending') continue;
      switch (item.kind) {
        case 'sent':
          row.status = 'sent';
          break;
        case 'failed':
          row.status = 'failed';
          row.reason = item.reason;
          break;
        case 'in_doubt':
          row.status = 'in_doubt';
          break;
        case 'retry':
          row.status = 'queued';
          row.nextAt = item.at.getTime();
          row.reason = item.reason;
          break;
        case 'released':
          row.status = 'queued';
          row.attempts--;
          break;
      }
    }
  }

  async pause(campaignId: string, notice: string): Promise<boolean> {
    if (this.campaigns.get(campaignId) !== 'sending') return false;
    this.campaigns.set(campaignId, 'paused');
    this.pauses.push({ campaignId, notice });
    return true;
  }
}

/** The same channel with the combined statement: the settle and the claim as one step over the rows. */
class RefillingChannel extends MemoryChannel {
  mostSending = 0;
  refills = 0;

  private noteSending(): void {
    this.mostSending = Math.max(this.mostSending, [...this.rows.values()].filter((row) => row.status === 'sending').length);
  }

  override async claim(request: ClaimRequest): Promise<Claimed<Message>> {
    const claimed = await super.claim(request);
    this.noteSending();
    return claimed;
  }

  async settleAndClaim(settlements: Settlement<Message, string>[], request: ClaimRequest): Promise<Claimed<Message>> {
    this.refills++;
    await super.settle(settlements);
    const claimed = await super.claim(request);
    this.claims.pop(); // counted as a refill, not a claim of its own
    this.noteSending();
    return claimed;
  }
}

const settings = (overrides: Partial<ChannelSettings> = {}): ChannelSettings => ({
  concurrency: 4,
  ratePerSecond: null,
  maxAttempts: 3,
  backoff: { baseMs: 60_000, maxMs: 3_600_000 },
  pauseAfterErrors: 0,
  ...overrides,
});

const logger = pino({ level: 'silent' });

function engineFor(channel: MemoryChannel) {
  const events: { room: string; event: string; payload: unknown }[] = [];
  const realtime = { publish: (room: string, event: string, payload: unknown) => void events.push({ room, event, payload }) };
  return { engine: new OutboundEngine(channel, { logger, realtime }), events };
}

/** A send that waits until the test lets it answer. */
function gate<T>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => (open = resolve));
  return { open, opened };
}

const sent: Send = async () => ({ kind: 'sent', detail: 'ok' });

describe('backoffMs', () => {
  it('grows by the factor from the base, stops at the cap, and jitters within ± the given share', () => {
    const backoff = { baseMs: 1000, factor: 2, maxMs: 10_000, jitter: 0.2 };
    expect(backoffMs(1, backoff, () => 0.5)).toBe(1000);
    expect(backoffMs(3, backoff, () => 0.5)).toBe(4000);
    expect(backoffMs(10, backoff, () => 0.5)).toBe(10_000);
    expect(backoffMs(2, backoff, () => 0)).toBe(1600);
    expect(backoffMs(2, backoff, () => 0.999999)).toBe(2400);
    for (let attempt = 1; attempt <= 12; attempt++) {
      const plain = Math.min(10_000, 1000 * 2 ** (attempt - 1));
      for (let n = 0; n < 50; n++) {
        const delay = backoffMs(attempt, backoff);
        expect(delay).toBeGreaterThanOrEqual(plain * 0.8);
        expect(delay).toBeLessThanOrEqual(plain * 1.2);
      }
    }
    // Without a factor it doubles, without a jitter it varies by a fifth.
    expect(backoffMs(2, { baseMs: 100, maxMs: 1000 }, () => 0)).toBe(160);
  });
});

describe('the outbound engine', () => {
  it('claims with the free slots and writes each outcome as soon as its send returns, not when the batch is done', async () => {
    const slow = gate<Outcome<string>>();
    const channel = new MemoryChannel(settings({ concurrency: 3 }), (message) => (message.id === 'm0001' ? slow.opened : sent(message)));
    channel.add(3);
    const { engine } = engineFor(channel);
    const drained = engine.drain();
    await until(() => channel.status('m0002') === 'sent' && channel.status('m0003') === 'sent', 10_000, 'the fast sends settled');
    // The slow one is the only message in flight, and the only one `sending`.
    expect(channel.status('m0001')).toBe('sending');
    expect(channel.claims[0]).toEqual({ limit: 3, quota: null });
    slow.open({ kind: 'sent' });
    await drained;
    expect(channel.counts()).toEqual({ sent: 3 });
    expect(channel.settles.flat().map((item) => [item.message.id, item.kind])).toEqual(
      expect.arrayContaining([
        ['m0001', 'sent'],
        ['m0002', 'sent'],
        ['m0003', 'sent'],
      ]),
    );
    expect(channel.housekeeping).toHaveBeenLastCalledWith(true);
  });

  it('never has more than `concurrency` messages sending', async () => {
    let inFlight = 0;
    let most = 0;
    const channel = new MemoryChannel(settings({ concurrency: 5 }), async () => {
      inFlight++;
      most = Math.max(most, inFlight, [...channel.rows.values()].filter((row) => row.status === 'sending').length);
      // A send that takes a moment, so that sends overlap: the overlap is what is counted.
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight--;
      return { kind: 'sent' };
    });
    channel.add(60);
    const { engine } = engineFor(channel);
    await engine.drain();
    expect(channel.counts()).toEqual({ sent: 60 });
    expect(most).toBeLessThanOrEqual(5);
    for (const claim of channel.claims) expect(claim.limit).toBeLessThanOrEqual(5);
  });

  it('with settleAndClaim, claims the next messages in the statement that writes the outcomes, never over the slots', async () => {
    const channel = new RefillingChannel(settings({ concurrency: 5 }), async () => {
      // Sends of uneven length, so that outcomes come back out of order (time is the subject here).
      await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * 3));
      return { kind: 'sent', detail: 'ok' };
    });
    channel.add(200);
    const { engine } = engineFor(channel);
    await engine.drain();
    expect(channel.counts()).toEqual({ sent: 200 });
    expect(new Set(channel.sends.map((send) => send.id)).size).toBe(200);
    // Rows marked `sending` never outnumbered the slots, whichever statement marked them.
    expect(channel.mostSending).toBeLessThanOrEqual(5);
    // Most messages came in with the outcome of the one before them, not from a claim of their own.
    expect(channel.refills).toBeGreaterThan(channel.claims.length);
    expect(channel.claims.length + channel.refills).toBeLessThan(200);
  });

  it('retries with backoff and jitter, and fails a message after the maximum of attempts', async () => {
    const channel = new MemoryChannel(settings({ maxAttempts: 2, backoff: { baseMs: 10_000, maxMs: 60_000, jitter: 0.2 } }), async () => ({
      kind: 'retry',
      reason: '451 try later',
    }));
    const [id] = channel.add(1);
    const { engine } = engineFor(channel);
    const before = Date.now();
    await engine.drain();
    const row = channel.rows.get(id!)!;
    expect(row).toMatchObject({ status: 'queued', attempts: 1, reason: '451 try later' });
    expect(row.nextAt).toBeGreaterThanOrEqual(before + 8000);
    expect(row.nextAt).toBeLessThanOrEqual(Date.now() + 12_000);
    // Its time comes: the second attempt is the last.
    row.nextAt = 0;
    await engine.drain();
    expect(channel.rows.get(id!)).toMatchObject({ status: 'failed', attempts: 2, reason: 'gave up after 2 attempts: 451 try later' });
    expect(channel.sends).toHaveLength(2);
  });

  it('an outcome may bring its own backoff', async () => {
    const channel = new MemoryChannel(settings(), async () => ({ kind: 'retry', reason: 'pair limit', throttled: true, backoff: { baseMs: 500_000, maxMs: 900_000, jitter: 0 } }));
    const [id] = channel.add(1);
    const { engine } = engineFor(channel);
    const before = Date.now();
    await engine.drain();
    expect(channel.rows.get(id!)!.nextAt - before).toBeGreaterThanOrEqual(500_000);
  });

  it('never sends a message in doubt again: neither one answered in doubt nor one a dead process left sending', async () => {
    const channel = new MemoryChannel(settings(), async (message) => (message.id === 'm0002' ? { kind: 'in_doubt', reason: 'timeout' } : { kind: 'sent' }));
    const orphans = channel.add(2, { status: 'sending' });
    channel.add(3);
    const { engine } = engineFor(channel);
    await engine.drain();
    await engine.drain();
    expect(orphans.map((id) => channel.status(id))).toEqual(['in_doubt', 'in_doubt']);
    expect(channel.status('m0002')).toBe('in_doubt');
    expect(channel.sends.map((send) => send.id).sort()).toEqual(['m0003', 'm0004', 'm0005']);
    expect(channel.counts()).toEqual({ in_doubt: 2, sent: 3 });
  });

  it('counts a send that throws as in doubt', async () => {
    const channel = new MemoryChannel(settings(), async () => {
      throw new Error('socket hang up');
    });
    channel.add(1);
    const { engine } = engineFor(channel);
    await engine.drain();
    expect(channel.counts()).toEqual({ in_doubt: 1 });
  });

  it('pauses a campaign after N consecutive provider errors, tells the room, and sends nothing more of it', async () => {
    const channel = new MemoryChannel(settings({ concurrency: 1, pauseAfterErrors: 3 }), async () => ({ kind: 'failed', reason: '550 relay denied' }));
    channel.add(10, { campaignId: 'c1' });
    channel.add(2, { campaignId: 'c2' });
    const { engine, events } = engineFor(channel);
    // c2's messages fail too: it is paused on its own count, after its own 2 do not reach 3.
    await engine.drain();
    expect(channel.campaigns.get('c1')).toBe('paused');
    expect(channel.campaigns.get('c2')).toBe('sending');
    expect(channel.sends.filter((send) => send.id <= 'm0010')).toHaveLength(3);
    expect([...channel.rows.values()].filter((row) => row.campaignId === 'c1' && row.status === 'queued')).toHaveLength(7);
    expect(channel.pauses).toEqual([{ campaignId: 'c1', notice: expect.stringMatching(/^Paused: 3 sends in a row failed \(last: 550 relay denied\)/) }]);
    expect(events).toEqual([
      { room: 'memory-room', event: 'outbound:paused', payload: { channel: 'memory', campaignId: 'c1', consecutiveErrors: 3, notice: channel.pauses[0]!.notice } },
    ]);
    // Staff resume it: it sends again from where it stopped.
    channel.campaigns.set('c1', 'sending');
    await engine.drain();
    expect(channel.sends.filter((send) => send.id <= 'm0010')).toHaveLength(6);
  });

  it('starts the count again on a success, and does not count throttles', async () => {
    // Counted as errors: 1 2 0 1 (1) 2 0 1 2 0; had the throttle counted, the sixth answer would pause.
    const answers: Outcome<string>['kind'][] = ['failed', 'failed', 'sent', 'failed', 'retry', 'failed', 'sent', 'failed', 'failed', 'sent'];
    let next = 0;
    const channel = new MemoryChannel(settings({ concurrency: 1, pauseAfterErrors: 3 }), async () => {
      const kind = answers[next++]!;
      if (kind === 'retry') return { kind, reason: '130429', throttled: true };
      return kind === 'sent' ? { kind } : { kind, reason: 'error' };
    });
    channel.add(answers.length);
    const { engine, events } = engineFor(channel);
    await engine.drain();
    expect(channel.pauses).toEqual([]);
    expect(events).toEqual([]);
    expect(channel.campaigns.get('c1')).toBe('sending');
  });

  it('never pauses with the threshold at 0, and messages without a campaign never count', async () => {
    const failing: Send = async () => ({ kind: 'failed', reason: 'error' });
    const off = new MemoryChannel(settings({ pauseAfterErrors: 0 }), failing);
    off.add(30);
    await engineFor(off).engine.drain();
    expect(off.pauses).toEqual([]);
    const replies = new MemoryChannel(settings({ pauseAfterErrors: 2 }), failing);
    replies.add(10, { campaignId: null });
    await engineFor(replies).engine.drain();
    expect(replies.counts()).toEqual({ failed: 10 });
  });

  it('gives back the claimed messages still waiting for their turn when their campaign is paused', async () => {
    const channel = new MemoryChannel(settings({ concurrency: 4, ratePerSecond: 2, burst: 1, pauseAfterErrors: 1 }), async () => ({ kind: 'failed', reason: 'error' }));
    channel.add(4);
    const { engine } = engineFor(channel);
    await engine.drain();
    expect(channel.sends).toHaveLength(1);
    expect(channel.counts()).toEqual({ failed: 1, queued: 3 });
    // Given back untried: their claim's attempt does not count.
    expect([...channel.rows.values()].filter((row) => row.status === 'queued').map((row) => row.attempts)).toEqual([0, 0, 0]);
  });

  it('sends at the configured rate: never more than rate + burst in any second', async () => {
    const channel = new MemoryChannel(settings({ concurrency: 10, ratePerSecond: 40, burst: 2 }), sent);
    channel.add(50);
    const { engine } = engineFor(channel);
    await engine.drain();
    const times = channel.sends.map((send) => send.at).sort((a, b) => a - b);
    expect(times).toHaveLength(50);
    // 50 messages at 40/s with a burst of 2 take at least (50 − 2 − 1) / 40 s.
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(((50 - 3) / 40) * 1000 * 0.98);
    for (const start of times) expect(times.filter((at) => at >= start && at < start + 1000).length).toBeLessThanOrEqual(42);
  });

  it('stops: claimed messages waiting for their turn go back to the queue', async () => {
    const first = gate<void>();
    const channel = new MemoryChannel(settings({ concurrency: 3, ratePerSecond: 1, burst: 1 }), async () => {
      first.open();
      return { kind: 'sent' };
    });
    channel.add(3);
    const { engine } = engineFor(channel);
    void engine.drain();
    await first.opened;
    await engine.stop();
    expect(channel.counts()).toEqual({ sent: 1, queued: 2 });
    expect([...channel.rows.values()].map((row) => row.attempts)).toEqual([1, 0, 0]);
  });

  it('holds the quota: counted messages stop when it is used up, the others go on, and it is told', async () => {
    const channel = new MemoryChannel(settings({ concurrency: 2 }), sent);
    const exhausted = jest.fn(async () => undefined);
    // Counted from the rows, as a real quota is: 3 minus those gone or going out.
    const used = () => [...channel.rows.values()].filter((row) => row.counted && (row.status === 'sent' || row.status === 'sending')).length;
    channel.quota = { remaining: async () => 3 - used(), counts: (message) => message.counted, exhausted, refreshMs: 60_000 };
    channel.add(5, { counted: true });
    channel.add(4, { counted: false });
    const { engine } = engineFor(channel);
    await engine.drain();
    expect([...channel.rows.values()].filter((row) => row.counted && row.status === 'sent')).toHaveLength(3);
    expect([...channel.rows.values()].filter((row) => !row.counted && row.status === 'sent')).toHaveLength(4);
    expect(exhausted).toHaveBeenCalled();
    // Another drain finds the quota used up: the counted messages keep waiting.
    await engine.drain();
    expect(channel.counts()).toEqual({ sent: 7, queued: 2 });
  });

  it('gives back a claimed batch whose preparation failed: nothing of it was sent', async () => {
    const channel = new MemoryChannel(settings(), sent);
    channel.add(3);
    (channel as MemoryChannel & { prepare: () => Promise<void> }).prepare = async () => {
      throw new Error('database went away');
    };
    const { engine } = engineFor(channel);
    await expect(engine.drain()).rejects.toThrow('database went away');
    expect(channel.sends).toEqual([]);
    expect([...channel.rows.values()].map((row) => [row.status, row.attempts])).toEqual([
      ['queued', 0],
      ['queued', 0],
      ['queued', 0],
    ]);
  });

  it('does nothing while another process holds the channel, and drains once it can', async () => {
    const channel = new MemoryChannel(settings(), sent);
    channel.add(2);
    let held = true;
    channel.exclusive = async (work) => {
      if (held) return false;
      await work();
      return true;
    };
    const { engine } = engineFor(channel);
    await engine.drain();
    expect(channel.claims).toEqual([]);
    held = false;
    await engine.drain();
    expect(channel.counts()).toEqual({ sent: 2 });
  });

  it('a drain asked for while draining only notes that there is more', async () => {
    const slow = gate<Outcome<string>>();
    const channel = new MemoryChannel(settings({ concurrency: 1 }), (message) => (message.id === 'm0001' ? slow.opened : sent(message)));
    channel.add(1);
    const { engine } = engineFor(channel);
    const first = engine.drain();
    await until(() => channel.sends.length === 1, 10_000, 'the first send');
    channel.add(2);
    await engine.drain();
    expect(engine.busy).toBe(true);
    slow.open({ kind: 'sent' });
    await first;
    expect(channel.counts()).toEqual({ sent: 3 });
  });
});

describe('TokenBucket', () => {
  it('hands tokens out in call order and lets a caller withdraw', async () => {
    const bucket = new TokenBucket(1000, 1);
    const withdrawn = new AbortController();
    const order: string[] = [];
    const a = bucket.take().then((ok) => order.push(`a:${ok}`));
    const b = bucket.take(withdrawn.signal).then((ok) => order.push(`b:${ok}`));
    const c = bucket.take().then((ok) => order.push(`c:${ok}`));
    withdrawn.abort();
    await Promise.all([a, b, c]);
    expect(order).toEqual(['b:false', 'a:true', 'c:true']);
    bucket.cancel();
    expect(await bucket.take()).toBe(false);
  });
});
