import type { AppDeps } from '../../kernel/context';
import { OutboundEngine } from '../../kernel/outbound';
import type { WhatsAppProvider } from './providers/provider';
import type { StatusChange } from './whatsapp.context';
import { WhatsAppChannel, type WaDetail, type WaOutbound } from './whatsapp.outbound';

/**
 * The send loop of this process: the kernel's outbound engine driving the WhatsApp channel.
 * PostgreSQL holds the send list; a `whatsapp.dispatch` job only says "there is work", and
 * whichever process takes the channel's lock drains every sending campaign (and the replies of
 * conversations) at the configured rate, `sendConcurrency` messages at a time.
 */
export type Sender = OutboundEngine<WaOutbound, WaDetail>;

export function createSender(deps: Pick<AppDeps, 'db' | 'config' | 'logger' | 'realtime'>, provider: WhatsAppProvider, statusChanged: (changes: StatusChange[]) => void): Sender {
  return new OutboundEngine(new WhatsAppChannel(deps, provider, statusChanged), deps);
}
