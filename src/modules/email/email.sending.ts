import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../../kernel/context';
import { newId } from '../../kernel/ids';
import { EMAIL_ROOM } from './email.events';
import { claimRecipients, recordSendOutcomes, suppressBounced, type ClaimedRow, type SendOutcome as RecipientOutcome } from './email.repository';
import { decideJob, sendJob } from './email.jobs';
import { trackingTokens } from './email.tracking';
import { renderBody, renderSubject, splitName, type RenderContext } from './email.templates';
import { createMailer, type Mailer, type SendOutcome } from './providers/mailer';

/**
 * The sending loop: claim a chunk (queued → sending, SKIP LOCKED), send it, record the answers
 * in one statement. A worker that dies between claim and record leaves its chunk `sending`;
 * after EMAIL_CLAIM_TIMEOUT those rows become `unknown` and are never sent again. So nobody
 * gets a message twice, and at most EMAIL_SEND_CHUNK messages per crashed worker have an
 * unknown outcome.
 */

interface VariantPlan {
  subject: string;
  sendHtml: string;
  sendText: string;
  links: number;
}

interface CampaignPlan {
  id: string;
  name: string;
  fromName: string;
  fromEmail: string;
  replyTo: string | null;
  variants: Map<string, VariantPlan>;
}

async function loadPlan(em: EntityManager, campaignId: string): Promise<CampaignPlan | undefined> {
  const rows = await em.execute<
    { id: string; name: string; from_name: string; from_email: string; reply_to: string | null; variant_id: string; subject: string; send_html: string; send_text: string; links: string[] }[]
  >(
    `select c.id, c.name, c.from_name, c.from_email, c.reply_to, v.id as variant_id, v.subject, t.send_html, t.send_text, t.links
     from email_campaigns c join email_variants v on v.campaign_id = c.id join email_templates t on t.id = v.template_id
     where c.id = ?`,
    [campaignId],
  );
  const first = rows[0];
  if (!first) return undefined;
  return {
    id: first.id,
    name: first.name,
    fromName: first.from_name,
    fromEmail: first.from_email,
    replyTo: first.reply_to,
    variants: new Map(rows.map((row) => [row.variant_id, { subject: row.subject, sendHtml: row.send_html, sendText: row.send_text, links: row.links.length }])),
  };
}

function buildMessage(deps: AppDeps, plan: CampaignPlan, row: ClaimedRow) {
  const variant = plan.variants.get(row.variant_id)!;
  const tokens = trackingTokens(deps);
  const base = deps.config.publicBaseUrl;
  const tracking: Record<string, string> = { pixel: `${base}/e/o/${tokens.sign('open', row.id)}` };
  for (let index = 0; index < variant.links; index++) tracking[`link${index}`] = `${base}/e/c/${tokens.sign('click', row.id, index)}`;
  const unsubscribeUrl = `${base}/e/u/${tokens.sign('unsubscribe', row.id)}`;
  const context: RenderContext = {
    contact: { ...splitName(row.name), name: row.name, email: row.email },
    campaign: { name: plan.name },
    unsubscribeUrl,
    tracking,
  };
  const body = renderBody(variant, context);
  const domain = plan.fromEmail.split('@')[1] ?? 'localhost';
  return {
    fromName: plan.fromName,
    fromEmail: plan.fromEmail,
    to: row.email,
    replyTo: plan.replyTo,
    subject: renderSubject(variant.subject, context),
    html: body.html,
    text: body.text,
    messageId: `<${newId()}@${domain}>`,
    unsubscribeUrl,
    campaignId: plan.id,
  };
}

/** Runs `work` over items with at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

type Result = RecipientOutcome;

function resultFor(deps: AppDeps, row: ClaimedRow, outcome: SendOutcome, messageId: string): Result {
  const { maxAttempts, retryBaseSeconds } = deps.config.email;
  switch (outcome.kind) {
    case 'sent':
      return { id: row.id, status: 'sent', messageId, error: null, nextAt: null };
    case 'bounced':
    case 'failed':
      return { id: row.id, status: outcome.kind, messageId: null, error: outcome.detail, nextAt: null };
    case 'retry': {
      if (row.attempts >= maxAttempts) return { id: row.id, status: 'failed', messageId: null, error: outcome.detail, nextAt: null };
      const delayMs = retryBaseSeconds * 1000 * 2 ** (row.attempts - 1);
      return { id: row.id, status: 'queued', messageId: null, error: outcome.detail, nextAt: new Date(Date.now() + delayMs).toISOString() };
    }
  }
}

async function sendChunk(deps: AppDeps, mailer: Mailer, plan: CampaignPlan, rows: ClaimedRow[]): Promise<void> {
  const results: Result[] = [];
  await eachLimited(rows, deps.config.email.maxConnections * 2, async (row) => {
    if (row.blocked || !plan.variants.has(row.variant_id)) {
      results.push({ id: row.id, status: 'skipped', messageId: null, error: null, nextAt: null });
      return;
    }
    const message = buildMessage(deps, plan, row);
    results.push(resultFor(deps, row, await mailer.send(message), message.messageId));
  });
  await recordSendOutcomes(deps.db, results);
  const bounced = results.filter((result) => result.status === 'bounced').map((result) => result.id);
  if (bounced.length) await suppressBounced(deps.db, bounced);
  const count = (status: string) => results.filter((result) => result.status === status).length;
  deps.realtime.publish(EMAIL_ROOM, 'email:progress', {
    campaignId: plan.id,
    sent: count('sent'),
    bounced: bounced.length,
    failed: count('failed'),
    retrying: count('queued'),
    skipped: count('skipped'),
  });
}

/** Rows a dead worker claimed long ago: their outcome is unknown, and they are not sent again. */
export async function releaseStaleClaims(em: EntityManager, claimTimeoutSeconds: number, campaignId?: string): Promise<number> {
  const rows = await em.execute<{ n: number }[]>(
    `with stale as (
       update email_recipients set status = 'unknown', claimed_at = null, last_error = 'worker stopped before recording the SMTP answer'
       where status = 'sending' and claimed_at < now() - make_interval(secs => ?) ${campaignId ? 'and campaign_id = ?' : ''}
       returning 1)
     select count(*)::int as n from stale`,
    campaignId ? [claimTimeoutSeconds, campaignId] : [claimTimeoutSeconds],
  );
  return rows[0]?.n ?? 0;
}

/** The `email.send` job: send every ready recipient of the campaign, then move it on. */
export async function runSending(deps: AppDeps, campaignId: string): Promise<void> {
  const em = deps.orm.em.fork() as EntityManager;
  await releaseStaleClaims(em, deps.config.email.claimTimeoutSeconds, campaignId);
  const plan = await loadPlan(em, campaignId);
  if (!plan) return;
  const mailer = createMailer(deps.config.email);
  let sent = 0;
  try {
    for (;;) {
      const rows = await claimRecipients(deps.db, campaignId, deps.config.email.sendChunk);
      if (rows.length === 0) break;
      await sendChunk(deps, mailer, plan, rows);
      sent += rows.length;
    }
  } finally {
    mailer.close();
  }
  if (sent) deps.logger.info({ campaignId, processed: sent }, 'email chunk run finished');
  await advance(deps, em, campaignId);
}

/**
 * After a run: schedule retries that are not due yet; or, when nothing is left to send, end
 * the test phase (→ waiting, winner job delayed by waitMinutes) or the campaign (→ sent).
 * Each move is a conditional update, so concurrent workers move the campaign once.
 */
async function advance(deps: AppDeps, em: EntityManager, campaignId: string): Promise<void> {
  const [pending] = await em.execute<{ next_retry: Date | null; open: number; oldest_claim: Date | null }[]>(
    `select min(next_attempt_at) filter (where status = 'queued' and next_attempt_at > now()) as next_retry,
            count(*) filter (where status in ('queued', 'sending'))::int as open,
            min(claimed_at) filter (where status = 'sending') as oldest_claim
     from email_recipients where campaign_id = ?`,
    [campaignId],
  );
  if (pending?.next_retry) {
    const at = new Date(pending.next_retry).getTime();
    await deps.jobs.enqueue(sendJob, { campaignId }, { jobId: `email-send-${campaignId}-${at}`, delayMs: Math.max(0, at - Date.now()) });
    return;
  }
  if (pending && pending.open > 0) {
    // Another worker holds the rest and advances the campaign when it records them. Should it
    // have died, a run after the claim timeout marks its rows unknown and moves the campaign on.
    if (pending.oldest_claim) {
      const at = new Date(pending.oldest_claim).getTime() + deps.config.email.claimTimeoutSeconds * 1000 + 1000;
      await deps.jobs.enqueue(sendJob, { campaignId }, { jobId: `email-send-${campaignId}-claims-${at}`, delayMs: Math.max(0, at - Date.now()) });
    }
    return;
  }
  const waiting = await em.execute<{ ab_decide_at: Date }[]>(
    `update email_campaigns set ab_phase = 'waiting', updated_at = now(),
       ab_decide_at = now() + make_interval(mins => (ab_test->>'waitMinutes')::int)
     where id = ? and ab_phase = 'testing'
       and not exists (select 1 from email_recipients where campaign_id = ? and status in ('queued', 'sending'))
     returning ab_decide_at`,
    [campaignId, campaignId],
  );
  if (waiting[0]) {
    const delayMs = Math.max(0, new Date(waiting[0].ab_decide_at).getTime() - Date.now());
    await deps.jobs.enqueue(decideJob, { campaignId }, { jobId: `email-decide-${campaignId}`, delayMs });
    deps.realtime.publish(EMAIL_ROOM, 'email:campaign', { campaignId, status: 'sending', abPhase: 'waiting', winner: null });
    deps.logger.info({ campaignId, delayMs }, 'email A/B test sent; winner decision scheduled');
    return;
  }
  const finished = await em.execute<{ ab_phase: 'none' | 'winner_sent'; winner: string | null }[]>(
    `update email_campaigns c set status = 'sent', finished_at = now(), updated_at = now()
     where c.id = ? and c.status = 'sending' and c.ab_phase in ('none', 'winner_sent')
       and not exists (select 1 from email_recipients where campaign_id = ? and status in ('queued', 'sending', 'held'))
     returning c.ab_phase, (select v.name from email_variants v where v.id = c.winner_variant_id) as winner`,
    [campaignId, campaignId],
  );
  if (finished[0]) {
    deps.realtime.publish(EMAIL_ROOM, 'email:campaign', { campaignId, status: 'sent', abPhase: finished[0].ab_phase, winner: finished[0].winner });
    deps.logger.info({ campaignId }, 'email campaign sent');
  }
}
