import type { InferKyselyDB } from '@mikro-orm/sql';
import type { PersonTimelineHolder, TimelineEntry } from '../../kernel/module';
import { sql, tables } from '../../kernel/sql';
import { userNameOf } from '../auth';
import type { ActivityType, ActivityUnit, VolunteerActivitySchema, VolunteerSchema } from './volunteers.entities';

type VolunteerTables = InferKyselyDB<typeof VolunteerSchema | typeof VolunteerActivitySchema>;
const db = tables<VolunteerTables>();

const ACTIVITY_NAMES: Record<ActivityType, string> = {
  canvassing: 'puerta a puerta',
  phone_bank: 'llamadas',
  event_staff: 'apoyo en evento',
  poster_placement: 'pega de afiches',
  whatsapp_outreach: 'difusión por WhatsApp',
  training: 'capacitación',
  gotv: 'movilización el día de la elección',
  other: 'otra actividad',
};

const UNIT_NAMES: Record<ActivityUnit, string> = {
  doors: 'puertas',
  calls: 'llamadas',
  posters: 'afiches',
  voters_registered: 'votantes inscritos',
  messages: 'mensajes',
  people: 'personas',
  turnout_reports: 'reportes de votación',
  other: 'unidades',
};

/**
 * A person as a volunteer on their page: when they joined the team and each activity logged for
 * them (type, amount, duration; not the notes or places, which stay on the volunteer's own page).
 */
export const volunteersTimeline: PersonTimelineHolder = {
  async items(q, { contactId, before, limit }) {
    const volunteer = await q.first(
      db.selectFrom('volunteers').select(['id', 'status', 'source', 'created_at']).where('contact_id', '=', contactId).where('erased_at', 'is', null),
    );
    if (!volunteer) return [];
    let query = db
      .selectFrom('volunteer_activities')
      .select(['id', 'type', 'occurred_at', 'quantity', 'unit', 'duration_minutes', 'source'])
      .where('volunteer_id', '=', volunteer.id);
    if (before) query = query.where('occurred_at', '<', before);
    const activities = await q.rows(query.orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(limit));
    const items: TimelineEntry[] = activities.map((activity) => ({
      at: activity.occurred_at,
      kind: 'activity',
      title: `Actividad de voluntariado: ${ACTIVITY_NAMES[activity.type]}${activity.quantity !== null && activity.quantity !== undefined ? ` (${activity.quantity} ${UNIT_NAMES[activity.unit ?? 'other']})` : ''}`,
      refId: activity.id,
      detail: {
        volunteerId: volunteer.id,
        type: activity.type,
        quantity: activity.quantity ?? null,
        unit: activity.unit ?? null,
        durationMinutes: activity.duration_minutes ?? null,
        source: activity.source,
      },
    }));
    if (!before || volunteer.created_at < before) {
      items.push({
        at: volunteer.created_at,
        kind: 'volunteer_joined',
        title: 'Se unió al equipo de voluntarios',
        refId: volunteer.id,
        detail: { volunteerId: volunteer.id, status: volunteer.status, source: volunteer.source },
      });
    }
    return items;
  },

  /** A `volunteers` origin is the staff member who registered the person. */
  originNames: {
    volunteers: (ref) => sql`('Voluntariado (inscrito por ' || coalesce(${userNameOf(ref)}, 'el equipo') || ')')`,
  },
};
