import type { AppDeps } from '../../kernel/context';
import { PreparedStatement } from '../../kernel/db';
import { safeErrorFields } from '../../kernel/http/problem';
import type { WhatsAppRuntime } from './whatsapp.context';
import { pgPool, PlannedEachTime } from './whatsapp.sql';
import type { MessageKind } from './whatsapp.entities';
import type { OutboundMessage, SendResult } from './providers/provider';
import { tierUsage } from './whatsapp.stats';
import { TokenBucket } from './whatsapp.rate';

interface ClaimedRow {
  id: string;
  campaign_id: string | null;
  conversation_id: string | null;
  phone: string;
  kind: MessageKind;
  body: string | null;
  params: string[] | null;
  template_id: string | null;
  status: 'sending' | 'skipped';
  attempts: number;
}

/**
 * Claims the next messages to send, at most `limit`, and marks them `sending` in the same
 * statement, so that at any moment only the messages actually in flight are `sending` (after a
 * crash, exactly those are in doubt). Consent is read here, at send time: a contact who opted out
 * since the campaign was written is `skipped`. A contact messaged within the pair interval waits.
 */
const claimSql = new PreparedStatement<ClaimedRow>(
  'wa_claim',
  `with picked as (
     select m.id from wa_messages m
     where m.status = 'queued' and m.next_attempt_at <= now()
       and (?::boolean or m.kind <> 'template')
       and (m.campaign_id is null or exists (select 1 from wa_campaigns k where k.id = m.campaign_id and k.status = 'sending'))
       and not exists (select 1 from wa_messages o where o.contact_id = m.contact_id and o.direction = 'out'
                       and o.accepted_at > now() - ?::int * interval '1 second')
     order by m.priority, m.id
     limit ?
     for update of m skip locked
   ), decided as (
     select m.id, (c.whatsapp_opted_out_at is not null or (m.kind = 'template' and not c.whatsapp_opt_in)) as refused
     from picked join wa_messages m on m.id = picked.id join contacts c on c.id = m.contact_id
   )
   update wa_messages m set
     status = case when d.refused then 'skipped' else 'sending' end,
     status_rank = case when d.refused then 9 else 1 end,
     error_title = case when d.refused then 'no WhatsApp consent at send time' else m.error_title end,
     claimed_at = now(),
     attempts = m.attempts + case when d.refused then 0 else 1 end
   from decided d where m.id = d.id
   returning m.id, m.campaign_id, m.conversation_id, m.phone, m.kind, m.body, m.params, m.template_id, m.status, m.attempts`,
);

/**
 * Settles a round in one statement. `accepted` only fills in what a faster webhook may not have
 * (the wamid, the acceptance time) and never lowers a status; the other outcomes apply only to a
 * message still `sending`.
 */
const settleSql = new PlannedEachTime<{ id: string; campaign_id: string | null; conversation_id: string | null; status: string }>(
  `update wa_messages m set
     status = case when v.status = 'accepted' then (case when m.status_rank < 2 then 'accepted' else m.status end) else v.status end,
     status_rank = case when v.status = 'accepted' then greatest(m.status_rank, 2) else v.rank end,
     wamid = coalesce(m.wamid, v.wamid),
     accepted_at = case when v.status = 'accepted' then coalesce(m.accepted_at, now()) else m.accepted_at end,
     failed_at = case when v.status = 'failed' then now() else m.failed_at end,
     error_code = case when v.status = 'accepted' then m.error_code else v.error_code end,
     error_title = case when v.status = 'accepted' then m.error_title else v.error_title end,
     next_attempt_at = coalesce(v.next_at, m.next_attempt_at)
   from unnest(?::uuid[], ?::text[], ?::smallint[], ?::text[], ?::int[], ?::text[], ?::timestamptz[])
     as v(id, status, rank, wamid, error_code, error_title, next_at)
   where m.id = v.id and (m.status = 'sending' or (v.status = 'accepted' and m.status_rank >= 1 and m.status_rank < 9))
   returning m.id, m.campaign_id, m.conversation_id, m.status`,
);

/** A process that held the send lock and died left these `sending`: nobody can know whether they went out. */
const orphansSql = new PreparedStatement<{ id: string }>('wa_orphans', `update wa_messages set status = 'in_doubt' where status = 'sending' returning id`);

const finishSql = new PreparedStatement<{ id: string }>(
  'wa_finish',
  `update wa_campaigns k set status = 'completed', completed_at = now(), notice = null
   where k.status = 'sending' and not exists (select 1 from wa_messages m where m.campaign_id = k.id and m.status in ('queued', 'sending'))
   returning k.id`,
);

const dueSql = new PreparedStatement<{ due: boolean }>(
  'wa_due',
  `select exists (
     select 1 from wa_messages m where m.status = 'queued' and m.next_attempt_at <= now()
       and (m.campaign_id is null or exists (select 1 from wa_campaigns k where k.id = m.campaign_id and k.status = 'sending'))
   ) as due`,
);

/** Claim-send-settle loops run side by side by the sender. */
const LANES = 4;

/** Only one process sends at a time (the rate limit is per phone number); the lock dies with its session. */
const SEND_LOCK_KEY = 0x5741_5345; // "WASE"

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
    const [row] = await dueSql.run(this.deps.orm, []);
    return Boolean(row?.due);
  }

  private async run(): Promise<void> {
    while (this.wanted && !this.stopped) {
      this.wanted = false;
      const locked = await this.withSendLock(() => this.sendRounds());
      // Another process is sending; it looks for work again after it lets go of the lock.
      if (!locked) return;
      if (!this.stopped && (await this.hasDueWork())) this.wanted = true;
    }
  }

  private async withSendLock(work: () => Promise<void>): Promise<boolean> {
    const pool = pgPool(this.deps.orm);
    const connection = await pool.acquireConnection();
    try {
      const { rows } = await connection.query('select pg_try_advisory_lock($1) as locked', [SEND_LOCK_KEY]);
      if (!(rows[0] as { locked?: boolean } | undefined)?.locked) return false;
      try {
        await work();
      } finally {
        await connection.query('select pg_advisory_unlock($1)', [SEND_LOCK_KEY]);
      }
      return true;
    } finally {
      await pool.releaseConnection(connection);
    }
  }

  /**
   * Several lanes claim and settle in turn, so that one lane's database round trips overlap the
   * others' sends; together they never have more than `sendConcurrency` messages in flight.
   */
  private async sendRounds(): Promise<void> {
    const orphans = await orphansSql.run(this.deps.orm, []);
    if (orphans.length) this.deps.logger.warn({ inDoubt: orphans.length }, 'whatsapp messages left in flight by a stopped process are in doubt');
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
          const claimed = await claimSql.run(this.deps.orm, [templatesAllowed, this.deps.config.whatsapp.pairIntervalSeconds, limit]);
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
    const settle = results.map(({ row, result }) => {
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
    const changed = settle.length
      ? await settleSql.run(this.deps.orm, [
          settle.map((item) => item.id),
          settle.map((item) => item.status),
          settle.map((item) => item.rank),
          settle.map((item) => item.wamid),
          settle.map((item) => item.code),
          settle.map((item) => item.title),
          settle.map((item) => item.next),
        ])
      : [];
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
    const finished = await finishSql.run(this.deps.orm, []);
    if (finished.length) this.runtime.statusChanged(finished.map((row) => ({ id: row.id, campaignId: row.id, conversationId: null, status: 'completed' })));
  }
}

export function tierNotice(limit: number | null): string {
  return `Waiting: the messaging tier (${limit ?? 'unlimited'} unique contacts per rolling 24 hours) is used up; sending resumes as the window frees up.`;
}
