import type { InferKyselyDB } from '@mikro-orm/sql';
import type { PersonalDataHolder } from '../../kernel/module';
import { tables } from '../../kernel/sql';
import type { NoticeSchema } from './notices.entities';
import { deliveriesOf, presentDelivery } from './notices.presenter';
import { forgetKeys, noticesOf } from './notices.repository';

/**
 * What the campaign told a person and how it went. The messages themselves (text, address) are
 * the channels' to export and erase; erasure here keeps each row's purpose, channel and outcome
 * (counts by purpose stay true) and drops the key, which callers build from ids of the person's
 * own records (an event they signed up for, their request). A merge moves the other record's
 * notices to the survivor (the key is unique by itself, not per contact).
 */
const db = tables<InferKyselyDB<typeof NoticeSchema>>();

export const noticesPersonalData: PersonalDataHolder = {
  async export(q, personId) {
    const rows = await noticesOf(q, personId);
    const deliveries = await deliveriesOf(
      q,
      rows.map((row) => ({ channel: row.channel, messageRef: row.message_ref })),
    );
    return {
      notices: rows.map((row) => ({
        id: row.id,
        purpose: row.purpose,
        status: row.status,
        channel: row.channel,
        reason: row.reason,
        delivery: row.channel && row.message_ref ? (presentDelivery(deliveries.get(row.channel)?.get(row.message_ref))?.status ?? null) : null,
        createdAt: row.created_at,
      })),
    };
  },

  async erase(q, personId) {
    return { notices: await forgetKeys(q, personId) };
  },

  async merge(q, fromId, intoId) {
    const moved = await q.write(db.updateTable('notices').set({ contact_id: intoId }).where('contact_id', '=', fromId).returning('id'));
    return { moved: { notices: moved.rows.map((row) => row.id) } };
  },

  async unmerge(q, moves, fromId, intoId) {
    const ids = moves.moved.notices ?? [];
    if (ids.length) await q.write(db.updateTable('notices').set({ contact_id: fromId }).where('id', 'in', ids).where('contact_id', '=', intoId));
  },
};
