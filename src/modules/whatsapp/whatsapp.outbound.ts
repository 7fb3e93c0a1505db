import type { WhatsAppConfig } from '../../config';
import type { AppDeps } from '../../kernel/context';
import type { ChannelSettings, Claimed, ClaimRequest, OutboundAdapter, OutboundMessage, Outcome, Quota, Settlement as EngineSettlement } from '../../kernel/outbound';
import type { OutboundMessage as ProviderMessage, SendResult, WhatsAppProvider } from './providers/provider';
import type { MessageKind } from './whatsapp.entities';
import { WHATSAPP_ROOM } from './whatsapp.events';
import {
  claimMessages,
  clearPauseNotices,
  finishCampaigns,
  hasDueMessages,
  markOrphansInDoubt,
  noteTierWait,
  pauseCampaign,
  settleMessages,
  templatesByIds,
  tierUsed,
  withSendLock,
  type ClaimedRow,
  type Settlement,
} from './whatsapp.outbound.repository';
import type { StatusChange } from './whatsapp.context';

/** A claimed WhatsApp message, as the engine and the provider need it. */
export interface WaOutbound extends OutboundMessage {
  conversationId: string | null;
  phone: string;
  kind: MessageKind;
  body: string | null;
  params: string[];
  templateId: string | null;
}

/** What the provider answered beyond the outcome: the wamid of an accepted message, the code of a refusal. */
export interface WaDetail {
  wamid?: string;
  code?: number;
}

export function tierNotice(limit: number | null): string {
  return `Waiting: the messaging tier (${limit ?? 'unlimited'} unique contacts per rolling 24 hours) is used up; sending resumes as the window frees up.`;
}

export function whatsappSettings(config: WhatsAppConfig): ChannelSettings {
  return {
    concurrency: config.sendConcurrency,
    ratePerSecond: config.ratePerSecond,
    // A half-percent burst: enough to absorb late timers, too little to trip the provider's limit.
    burst: Math.max(1, Math.floor(config.ratePerSecond / 200)),
    maxAttempts: config.maxAttempts,
    backoff: { baseMs: 2000, factor: 2, maxMs: 300_000 },
    pauseAfterErrors: config.pauseAfterErrors,
  };
}

/** Pair limit: Meta's guidance is to wait 4^n seconds before writing to that person again. */
const PAIR_BACKOFF = { baseMs: 4000, factor: 4, maxMs: 900_000 };

/** The provider's answer in the engine's words. */
export function outcomeOf(result: SendResult): Outcome<WaDetail> {
  switch (result.outcome) {
    case 'accepted':
      return { kind: 'sent', detail: { wamid: result.wamid } };
    case 'failed':
      return { kind: 'failed', reason: result.title, detail: { code: result.code } };
    case 'in_doubt':
      return { kind: 'in_doubt', reason: result.reason };
    case 'retry':
      return {
        kind: 'retry',
        reason: result.title,
        detail: { code: result.code },
        // Rate limits say "slower", not "broken"; an outage is an error like any other.
        throttled: result.throttle !== 'transient',
        ...(result.throttle === 'pair' ? { backoff: PAIR_BACKOFF } : {}),
        ...(result.throttle === 'number' || result.throttle === 'app' ? { slowDownMs: 200 } : {}),
      };
  }
}

function toOutbound(row: ClaimedRow): WaOutbound {
  return {
    id: row.id,
    campaignId: row.campaign_id,
    attempt: row.attempts,
    conversationId: row.conversation_id,
    phone: row.phone,
    kind: row.kind,
    body: row.body,
    params: row.params ?? [],
    templateId: row.template_id,
  };
}

function rowOf(item: EngineSettlement<WaOutbound, WaDetail>): Settlement {
  const id = item.message.id;
  const none = { wamid: null, code: null, title: null, next: null, released: false };
  switch (item.kind) {
    case 'sent':
      return { ...none, id, status: 'accepted', rank: 2, wamid: item.detail?.wamid ?? null };
    case 'failed':
      return { ...none, id, status: 'failed', rank: 4, code: item.detail?.code ?? null, title: item.reason.slice(0, 200) };
    case 'in_doubt':
      return { ...none, id, status: 'in_doubt', rank: 1, title: `in doubt: ${item.reason}`.slice(0, 200) };
    case 'retry':
      return { ...none, id, status: 'queued', rank: 0, code: item.detail?.code ?? null, title: item.reason.slice(0, 200), next: item.at };
    case 'released':
      return { ...none, id, status: 'queued', rank: 0, released: true };
  }
}

/**
 * The WhatsApp channel for the outbound engine: messages of sending campaigns and conversation
 * replies (replies first), one sender across processes (the phone number's rate is one), the
 * messaging tier as its quota, and the war room told of every status change.
 */
export class WhatsAppChannel implements OutboundAdapter<WaOutbound, WaDetail> {
  readonly channel = 'whatsapp';
  readonly room = WHATSAPP_ROOM;
  readonly settings: ChannelSettings;
  readonly quota: Quota<WaOutbound> | undefined;
  private readonly templates = new Map<string, { name: string; language: string }>();

  constructor(
    private readonly deps: Pick<AppDeps, 'db' | 'config' | 'logger'>,
    private readonly provider: WhatsAppProvider,
    private readonly statusChanged: (changes: StatusChange[]) => void,
  ) {
    const config = deps.config.whatsapp;
    this.settings = whatsappSettings(config);
    const limit = config.messagingTier;
    this.quota =
      limit === null
        ? undefined
        : {
            remaining: async () => Math.max(0, limit - (await tierUsed(deps.db))),
            // Replies inside the customer-service window do not count; templates do.
            counts: (message) => message.kind === 'template',
            exhausted: () => noteTierWait(deps.db, tierNotice(limit)),
          };
  }

  exclusive(work: () => Promise<void>): Promise<boolean> {
    return withSendLock(this.deps.db, work);
  }

  releaseOrphans(): Promise<number> {
    return markOrphansInDoubt(this.deps.db);
  }

  hasDueWork(): Promise<boolean> {
    return hasDueMessages(this.deps.db);
  }

  async claim(request: ClaimRequest): Promise<Claimed<WaOutbound>> {
    const rows = await claimMessages(this.deps.db, {
      templatesAllowed: request.quota === null || request.quota > 0,
      pairIntervalSeconds: this.deps.config.whatsapp.pairIntervalSeconds,
      limit: request.limit,
    });
    const skipped = rows.filter((row) => row.status === 'skipped');
    if (skipped.length) this.statusChanged(skipped.map((row) => ({ id: row.id, campaignId: row.campaign_id, conversationId: row.conversation_id, status: 'skipped' })));
    return { messages: rows.filter((row) => row.status === 'sending').map(toOutbound), skipped: skipped.length };
  }

  async prepare(messages: WaOutbound[]): Promise<void> {
    const missing = [...new Set(messages.map((message) => message.templateId).filter((id): id is string => id !== null && !this.templates.has(id)))];
    for (const template of await templatesByIds(this.deps.db, missing)) this.templates.set(template.id, { name: template.name, language: template.language });
  }

  async send(message: WaOutbound): Promise<Outcome<WaDetail>> {
    const outbound = this.providerMessage(message);
    if (!outbound) return { kind: 'failed', reason: 'its template no longer exists' };
    return outcomeOf(await this.provider.send(outbound));
  }

  async settle(settlements: EngineSettlement<WaOutbound, WaDetail>[]): Promise<void> {
    const changed = await settleMessages(this.deps.db, settlements.map(rowOf), this.provider.name);
    const taken = settlements.filter((item) => item.kind === 'sent').length;
    if (taken && this.provider.name === 'simulator')
      this.deps.logger.info({ channel: this.channel, simulated: taken }, 'the WhatsApp simulator took messages: none reached WhatsApp');
    this.statusChanged(changed.map((row) => ({ id: row.id, campaignId: row.campaign_id, conversationId: row.conversation_id, status: row.status })));
  }

  async pause(campaignId: string, notice: string): Promise<boolean> {
    const paused = await pauseCampaign(this.deps.db, campaignId, notice);
    if (paused) this.statusChanged([{ id: campaignId, campaignId, conversationId: null, status: 'paused' }]);
    return paused;
  }

  async housekeeping(): Promise<void> {
    await clearPauseNotices(this.deps.db);
    const finished = await finishCampaigns(this.deps.db);
    if (finished.length) this.statusChanged(finished.map((id) => ({ id, campaignId: id, conversationId: null, status: 'completed' })));
  }

  private providerMessage(message: WaOutbound): ProviderMessage | undefined {
    if (message.kind === 'text') return { messageId: message.id, to: message.phone, content: { type: 'text', body: message.body ?? '' } };
    const template = message.templateId ? this.templates.get(message.templateId) : undefined;
    if (!template) return undefined;
    return { messageId: message.id, to: message.phone, content: { type: 'template', name: template.name, language: template.language, params: message.params } };
  }
}
