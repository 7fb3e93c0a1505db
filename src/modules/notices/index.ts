import type { ModuleManifest } from '../../kernel/module';
import { noticesEntities } from './notices.entities';
import { noticesPersonalData } from './notices.personal-data';
import { noticesRouter } from './notices.routes';

/**
 * Messages to one person on behalf of other modules (event reminders, PQRS acknowledgements and
 * answers), each sent at most once on the first channel the person can be reached on, delivered
 * by the WhatsApp and email senders like any of their messages. See docs/notices.md.
 */
export const noticesModule: ModuleManifest = {
  name: 'notices',
  entities: noticesEntities,
  routers: [noticesRouter],
  personalData: noticesPersonalData,
};

export { queueNotice, dispatchNotices, type NoticeChannel, type NoticeRequest, type NoticeResult } from './notices.service';
