import type { AppDeps } from '../../kernel/context';
import { safeErrorFields } from '../../kernel/http/problem';
import type { WhatsAppRuntime } from './whatsapp.context';
import { claimMessages, finishCampaigns, hasDueMessages, markOrphansInDoubt, settleMessages, withSendLock, type ClaimedRow, type Settlement } from './whatsapp.repository';
import type { OutboundMessage, SendResult } from './providers/provider';
import { tierUsage } from './whatsapp.stats';
import { TokenBucket } from './whatsapp.rate';

/** Claim-send-settle loops run side by side by the sender. */
const LANES = 4;

function backoffMs(result: Extract<SendResult, { outcome: 'retry' }>, attempt: number): number {
  const jitter = 0.8 + Math.random() * 0.4;
  // Pair limit: Meta's guidance is to wait 4^n seconds before writing to that person again.
  if (result.throttle === 'pair') return Math.min(4 ** attempt, 900) * 1000 * jitter;
  return Math.min(2 ** attempt, 300) * 1000 * jitter;
}

/**
 * The send loop. PostgreSQL holds the send list; a `whatsapp.dispatch` job only says "there is
 * work", and whichever process takes the lock drains every sending campaign (and the replies of
 * conversations) at the configured rate, `sendConcurrency` messages at a time.
 */
export class Sender {
  private readonly bucket: TokenBucket;
  private readonly templates = new Map<string, { name: string; language: string }>();
  private active: Promise<void> | undefined;
  private wanted = false;
  private stopped = false;
  private tierLeft: { remaining: number | null; until: number } | undefined;
  private tierHeld = 0;

  constructor(
    private readonly deps: AppDeps,
    private readonly runtime: WhatsAppRuntime,
  ) {
    const { ratePerSecond } = deps.config.whatsapp;
    // A half-percent burst: enough to absorb late timers, too little to trip the provider's limit.
    this.bucket = new TokenBucket(ratePerSecond, Math.max(1, Math.floor(ratePerSecond / 200)));
  }

  /**
   * Sends until nothing is due. If this process is already at it, only notes that there is more
   * (the running loop looks again before it stops) and returns, so no job waits behind another.
   */
  drain(): Promise<void> {
    this.wanted = true;
    if (this.active) return Promise.resolve();
    this.active = this.run().finally(() => {
      this.active = undefined;
    });
    return this.active;
  }

  get busy(): boolean {
    return this.active !== undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.bucket.cancel();
    await this.active?.catch(() => undefined);
  }

  async hasDueWork(): Promise<boolean> {
    return hasDueMessages(this.deps.db);
  }

  private async run(): Promise<void> {
    while (this.wanted && !this.stopped) {
      this.wanted = false;
      const locked = await withSendLock(this.deps.db, () => this.sendRounds());
      // Another process is sending; it looks for work again after it lets go of the lock.
      if (!locked) return;
      if (!this.stopped && (await this.hasDueWork())) this.wanted = true;
    }
  }

  /**
   * Several lanes claim and settle in turn, so that one lane's database round trips overlap the
   * others' sends; together they never have more than `sendConcurrency` messages in flight.
   */
  private async sendRounds(): Promise<void> {
    const orphans = await markOrphansInDoubt(this.deps.db);
    if (orphans) this.deps.logger.warn({ inDoubt: orphans }, 'whatsapp messages left in flight by a stopped process are in doubt');
    this.tierLeft = undefined;
    const concurrency = this.deps.config.whatsapp.sendConcurrency;
    const lanes = Math.min(LANES, concurrency);
    const perLane = Array.from({ length: lanes }, (_, lane) => Math.floor(concurrency / lanes) + (lane < concurrency % lanes ? 1 : 0));
    let lastFinish = Date.now();
    await Promise.all(
      perLane.map(async (laneSize) => {
        while (!this.stopped) {
          // Lanes reserve their share of the messaging tier before they claim, and give back what they did not use.
          const reserved = await this.reserveTier(laneSize);
          const templatesAllowed = reserved === null || reserved > 0;
          const limit = reserved === null || reserved === 0 ? laneSize : reserved;
          const claimed = await claimMessages(this.deps.db, { templatesAllowed, pairIntervalSeconds: this.deps.config.whatsapp.pairIntervalSeconds, limit });
          // Claimed rows are `sending` now, which the tier count reads from the table.
          this.tierHeld -= reserved ?? 0;
          if (!templatesAllowed) await this.noteTierWait();
          if (claimed.length === 0) {
            this.returnTier(reserved ?? 0);
            return;
          }
          const used = await this.sendRound(claimed);
          this.returnTier((reserved ?? 0) - used);
          if (Date.now() - lastFinish > 2000) {
            lastFinish = Date.now();
            await this.finishCampaigns();
          }
        }
      }),
    );
    await this.finishCampaigns();
  }

  /** Sends one claimed batch; returns how many template messages may have reached the provider. */
  private async sendRound(claimed: ClaimedRow[]): Promise<number> {
    const toSend = claimed.filter((row) => row.status === 'sending');
    await this.loadTemplates(toSend);
    const results = await Promise.all(
      toSend.map(async (row) => {
        const wait = await this.bucket.take();
        if (!wait) return { row, result: { outcome: 'retry', code: 0, title: 'stopping', throttle: 'transient' } as SendResult };
        try {
          return { row, result: await this.runtime.provider.send(this.outbound(row)) };
        } catch (error) {
          this.deps.logger.error({ messageId: row.id, ...safeErrorFields(error) }, 'whatsapp send threw');
          return { row, result: { outcome: 'in_doubt', reason: 'unexpected error' } as SendResult };
        }
      }),
    );
    const { maxAttempts } = this.deps.config.whatsapp;
    const now = Date.now();
    const settle = results.map(({ row, result }): Settlement => {
      switch (result.outcome) {
        case 'accepted':
          return { id: row.id, status: 'accepted', rank: 2, wamid: result.wamid, code: null, title: null, next: null };
        case 'failed':
          return { id: row.id, status: 'failed', rank: 4, wamid: null, code: result.code, title: result.title, next: null };
        case 'in_doubt':
          return { id: row.id, status: 'in_doubt', rank: 1, wamid: null, code: null, title: `in doubt: ${result.reason}`.slice(0, 200), next: null };
        case 'retry': {
          if (result.throttle === 'number' || result.throttle === 'app') this.bucket.pause(200);
          if (row.attempts >= maxAttempts) return { id: row.id, status: 'failed', rank: 4, wamid: null, code: result.code, title: `gave up after ${row.attempts} attempts: ${result.title}`.slice(0, 200), next: null };
          return { id: row.id, status: 'queued', rank: 0, wamid: null, code: result.code, title: result.title, next: new Date(now + backoffMs(result, row.attempts)) };
        }
      }
    });
    const changed = await settleMessages(this.deps.db, settle);
    const skipped = claimed.filter((row) => row.status === 'skipped');
    this.runtime.statusChanged([
      ...changed.map((row) => ({ id: row.id, campaignId: row.campaign_id, conversationId: row.conversation_id, status: row.status })),
      ...skipped.map((row) => ({ id: row.id, campaignId: row.campaign_id, conversationId: row.conversation_id, status: 'skipped' })),
    ]);
    return results.filter(({ row, result }) => row.kind === 'template' && result.outcome !== 'retry' && result.outcome !== 'failed').length;
  }

  private outbound(row: ClaimedRow): OutboundMessage {
    if (row.kind === 'text') return { messageId: row.id, to: row.phone, content: { type: 'text', body: row.body ?? '' } };
    const template = this.templates.get(row.template_id!)!;
    return { messageId: row.id, to: row.phone, content: { type: 'template', name: template.name, language: template.language, params: row.params ?? [] } };
  }

  private async loadTemplates(rows: ClaimedRow[]): Promise<void> {
    const missing = [...new Set(rows.map((row) => row.template_id).filter((id): id is string => Boolean(id) && !this.templates.has(id!)))];
    if (!missing.length) return;
    const found = await this.deps.orm.em.fork().execute<{ id: string; name: string; language: string }[]>('select id, name, language from wa_templates where id in (?)', [missing]);
    for (const template of found) this.templates.set(template.id, { name: template.name, language: template.language });
  }

  /**
   * Takes up to `wanted` of the unique contacts still reachable in the rolling 24 h (null: no
   * tier). The figure is re-read from the rows every few seconds; in between, lanes count locally.
   */
  private async reserveTier(wanted: number): Promise<number | null> {
    if (this.deps.config.whatsapp.messagingTier === null) return null;
    if (!this.tierLeft || Date.now() > this.tierLeft.until) {
      const usage = await tierUsage(this.deps.orm.em.fork(), this.deps.config.whatsapp);
      // Reserved by lanes but not claimed yet: not in the table, so not in the count.
      this.tierLeft = { remaining: Math.max(0, (usage.remaining ?? 0) - this.tierHeld), until: Date.now() + 5000 };
    }
    const taken = Math.min(wanted, this.tierLeft.remaining ?? 0);
    this.tierLeft.remaining = (this.tierLeft.remaining ?? 0) - taken;
    this.tierHeld += taken;
    return taken;
  }

  private returnTier(unused: number): void {
    if (this.tierLeft && this.tierLeft.remaining !== null) this.tierLeft.remaining += unused;
  }

  private async noteTierWait(): Promise<void> {
    const limit = this.deps.config.whatsapp.messagingTier;
    await this.deps.orm.em.fork().execute(
      `update wa_campaigns k set notice = ? where k.status = 'sending' and k.notice is distinct from ?
         and exists (select 1 from wa_messages m where m.campaign_id = k.id and m.status = 'queued')`,
      [tierNotice(limit), tierNotice(limit)],
    );
  }

  private async finishCampaigns(): Promise<void> {
    const finished = await finishCampaigns(this.deps.db);
    if (finished.length) this.runtime.statusChanged(finished.map((id) => ({ id, campaignId: id, conversationId: null, status: 'completed' })));
  }
}

export function tierNotice(limit: number | null): string {
  return `Waiting: the messaging tier (${limit ?? 'unlimited'} unique contacts per rolling 24 hours) is used up; sending resumes as the window frees up.`;
}
