import type { AppDeps } from '../../kernel/context';
import { processLocal } from '../../kernel/process-local';
import { CloudApiProvider } from './providers/cloud-api';
import type { WhatsAppProvider } from './providers/provider';
import { SimulatorProvider } from './providers/simulator';
import { unreadTotals } from './whatsapp.conversations.repository';
import { WHATSAPP_INBOX_ROOM, WHATSAPP_ROOM, type StatusEvent } from './whatsapp.events';
import { campaignStatuses } from './whatsapp.outbound.repository';
import { createSender, type Sender } from './whatsapp.sender';
import { campaignCounters } from './whatsapp.stats';
import { handleWebhookPayload } from './whatsapp.webhook';

export interface StatusChange {
  id: string;
  campaignId: string | null;
  conversationId: string | null;
  status: string;
}

/** What the module keeps per process: its provider, its sender, and the pending live pushes. */
export class WhatsAppRuntime {
  readonly provider: WhatsAppProvider;
  readonly sender: Sender;
  private readonly dirtyCampaigns = new Set<string>();
  private pendingMessages: StatusEvent['messages'] = [];
  private readonly pushStatus: () => void;
  private readonly pushUnread: () => void;

  constructor(private readonly deps: AppDeps) {
    const config = deps.config.whatsapp;
    this.provider =
      config.provider === 'cloud' ? new CloudApiProvider(config) : new SimulatorProvider((payload) => handleWebhookPayload(deps, payload).then(() => undefined), deps.logger);
    if (this.provider.name === 'simulator') deps.logger.warn('WhatsApp: no Cloud API token, so the built-in simulator takes every message: nothing reaches WhatsApp');
    this.sender = createSender(deps, this.provider, (changes) => this.statusChanged(changes));
    // One push a second at most (across processes), carrying each campaign that changed once (with fresh counters).
    this.pushStatus = deps.realtime.throttled('whatsapp:status', () => this.publishStatus(), 1000);
    this.pushUnread = deps.realtime.throttled('whatsapp:unread', () => this.publishUnread(), 1000);
  }

  statusChanged(changes: StatusChange[]): void {
    for (const change of changes) {
      if (change.campaignId) this.dirtyCampaigns.add(change.campaignId);
      // Conversation messages are few and each matters to the person answering.
      else if (this.pendingMessages.length < 500) this.pendingMessages.push({ id: change.id, conversationId: change.conversationId, status: change.status });
    }
    if (changes.length) this.pushStatus();
  }

  /** Something may have changed the unread badge (a message in, a read, a status): pushed within a second. */
  unreadChanged(): void {
    this.pushUnread();
  }

  /**
   * Campaigns' counters to the figures room, conversation messages' ticks to the inbox room: each
   * room only its part, so a viewer never hears of single conversation messages.
   */
  private async publishStatus(): Promise<void> {
    const ids = [...this.dirtyCampaigns];
    const messages = this.pendingMessages;
    this.dirtyCampaigns.clear();
    this.pendingMessages = [];
    if (ids.length) {
      const counters = await campaignCounters(this.deps.db, ids);
      const statuses = await campaignStatuses(this.deps.db, ids);
      const campaigns = statuses.map((row) => ({ campaignId: row.id, status: row.status, progress: counters.get(row.id)! }));
      if (campaigns.length) this.deps.realtime.publish(WHATSAPP_ROOM, 'whatsapp:status', { campaigns, messages: [] });
    }
    if (messages.length) this.deps.realtime.publish(WHATSAPP_INBOX_ROOM, 'whatsapp:status', { campaigns: [], messages });
  }

  private async publishUnread(): Promise<void> {
    this.deps.realtime.publish([WHATSAPP_ROOM, WHATSAPP_INBOX_ROOM], 'whatsapp:unread', await unreadTotals(this.deps.db));
  }

  /** Waits until this process's sender has no drain under way. */
  idle(): Promise<boolean> {
    return this.sender.idle();
  }

  /** Stops sending (messages waiting for their turn go back to the queue) and lets go of the provider. */
  async close(): Promise<void> {
    await this.sender.stop();
    this.provider.close?.();
  }
}

/** The module's state for this process (made on first use, closed at shutdown). */
export const whatsapp = processLocal('whatsapp.runtime', (deps: AppDeps) => new WhatsAppRuntime(deps));
