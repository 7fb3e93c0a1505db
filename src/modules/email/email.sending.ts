import type { AppDeps } from '../../kernel/context';
import { newId } from '../../kernel/ids';
import type { PlanRow } from './email.outbound.repository';
import { trackingTokens } from './email.tracking';
import { renderBody, renderSubject, splitName, type RenderContext } from './email.templates';
import type { OutgoingMessage } from './providers/mailer';

/** What one recipient's message is made of: the campaign's sender and its variants' content. */

interface VariantPlan {
  subject: string;
  sendHtml: string;
  sendText: string;
  links: number;
}

export interface CampaignPlan {
  id: string;
  name: string;
  fromName: string;
  fromEmail: string;
  replyTo: string | null;
  variants: Map<string, VariantPlan>;
}

/** The plans of the campaigns among `rows` (one row per campaign and variant). */
export function plansFrom(rows: PlanRow[]): Map<string, CampaignPlan> {
  const plans = new Map<string, CampaignPlan>();
  for (const row of rows) {
    let plan = plans.get(row.id);
    if (!plan) {
      plan = { id: row.id, name: row.name, fromName: row.from_name, fromEmail: row.from_email, replyTo: row.reply_to, variants: new Map() };
      plans.set(row.id, plan);
    }
    plan.variants.set(row.variant_id, { subject: row.subject, sendHtml: row.send_html, sendText: row.send_text, links: row.links.length });
  }
  return plans;
}

export interface Recipient {
  /** The recipient row's id: tracking tokens carry it. */
  id: string;
  email: string;
  name: string;
  variantId: string;
}

/** The personalised message for one recipient, with its tracking and unsubscribe URLs; undefined when its variant is not in the plan. */
export function buildMessage(deps: AppDeps, plan: CampaignPlan, recipient: Recipient): OutgoingMessage | undefined {
  const variant = plan.variants.get(recipient.variantId);
  if (!variant) return undefined;
  const tokens = trackingTokens(deps);
  const base = deps.config.publicBaseUrl;
  const tracking: Record<string, string> = { pixel: `${base}/e/o/${tokens.sign('open', recipient.id)}` };
  for (let index = 0; index < variant.links; index++) tracking[`link${index}`] = `${base}/e/c/${tokens.sign('click', recipient.id, index)}`;
  const unsubscribeUrl = `${base}/e/u/${tokens.sign('unsubscribe', recipient.id)}`;
  const context: RenderContext = {
    contact: { ...splitName(recipient.name), name: recipient.name, email: recipient.email },
    campaign: { name: plan.name },
    unsubscribeUrl,
    tracking,
  };
  const body = renderBody(variant, context);
  const domain = plan.fromEmail.split('@')[1] ?? 'localhost';
  return {
    fromName: plan.fromName,
    fromEmail: plan.fromEmail,
    to: recipient.email,
    replyTo: plan.replyTo,
    subject: renderSubject(variant.subject, context),
    html: body.html,
    text: body.text,
    messageId: `<${newId()}@${domain}>`,
    unsubscribeUrl,
    campaignId: plan.id,
  };
}

/** The footer every notice carries: the person can stop email from the campaign with one click. */
const NOTICE_FOOTER_TEXT = 'Para no recibir más correos de la campaña:';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * A notice to one person, as the caller wrote it (text always, HTML when given), from the
 * configured sender, with an unsubscribe link in the List-Unsubscribe header and in a footer.
 */
export function buildNoticeMessage(deps: AppDeps, notice: { id: string; email: string; subject: string; text: string; html: string | null }): OutgoingMessage {
  const unsubscribeUrl = `${deps.config.publicBaseUrl}/e/u/${trackingTokens(deps).sign('notice_unsubscribe', notice.id)}`;
  const from = deps.config.email.from;
  const domain = from.email.split('@')[1] ?? 'localhost';
  const footerHtml = `<p style="font-size:12px;color:#666">${escapeHtml(NOTICE_FOOTER_TEXT)} <a href="${escapeHtml(unsubscribeUrl)}">cancelar suscripción</a></p>`;
  return {
    fromName: from.name,
    fromEmail: from.email,
    to: notice.email,
    replyTo: null,
    subject: notice.subject,
    text: `${notice.text}\n\n--\n${NOTICE_FOOTER_TEXT} ${unsubscribeUrl}\n`,
    html: notice.html === null ? null : /<\/body>/i.test(notice.html) ? notice.html.replace(/<\/body>/i, `${footerHtml}</body>`) : `${notice.html}${footerHtml}`,
    messageId: `<${newId()}@${domain}>`,
    unsubscribeUrl,
    campaignId: null,
  };
}
