import type { AppDeps } from '../../kernel/context';
import { repeatEvery, type BackgroundTask } from '../../kernel/module';
import { startDueCampaigns } from './whatsapp.campaigns';
import { whatsapp } from './whatsapp.context';
import { requestDispatch } from './whatsapp.jobs';
import { expireInDoubt as expireMessagesInDoubt } from './whatsapp.outbound.repository';
import { applyPendingStatuses } from './whatsapp.webhook';

const TICK_MS = 1000;

/**
 * Once a second: start scheduled campaigns that are due, ask for a dispatch when messages are
 * due (retries whose backoff ended, campaigns resumed, work left by a process that stopped), and
 * apply statuses that arrived before their message's wamid was stored.
 * Once an hour: in-doubt messages that never got a status within WHATSAPP_IN_DOUBT_EXPIRY are
 * closed as failed ("unconfirmed"); they are never sent again automatically.
 */
export function whatsappBackground(deps: AppDeps): BackgroundTask {
  let ticks = 0;
  const beat = repeatEvery(deps.logger, 'whatsapp.tick', TICK_MS, async () => {
    await startDueCampaigns(deps);
    const runtime = whatsapp(deps);
    // A busy sender finds new work itself; asking again would only queue jobs behind it.
    if (!runtime.sender.busy && (await runtime.sender.hasDueWork())) await requestDispatch(deps, 'tick');
    await applyPendingStatuses(deps);
    if (ticks++ % 3600 === 0) await expireInDoubt(deps);
  });
  return {
    async stop() {
      await beat.stop();
      // Before the job workers close, so a drain in progress ends now rather than with its list.
      await whatsapp.ifMade(deps)?.close();
    },
  };
}

/** In-doubt messages without a status after WHATSAPP_IN_DOUBT_EXPIRY are closed as failed; returns how many. */
export function expireInDoubt(deps: Pick<AppDeps, 'db' | 'config'>): Promise<number> {
  return expireMessagesInDoubt(deps.db, deps.config.whatsapp.inDoubtExpirySeconds);
}
