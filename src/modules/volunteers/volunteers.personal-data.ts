import type { InferKyselyDB } from '@mikro-orm/sql';
import { MergeRefusedError, type PersonalDataHolder } from '../../kernel/module';
import { tables } from '../../kernel/sql';
import type { VolunteerActivitySchema, VolunteerSchema, VolunteerVoterSchema } from './volunteers.entities';

type VolunteerTables = InferKyselyDB<typeof VolunteerSchema | typeof VolunteerActivitySchema | typeof VolunteerVoterSchema>;
const db = tables<VolunteerTables>();

/**
 * A person as a volunteer: their place in the team and the work they logged. Erasure keeps the
 * volunteer's row (anonymous, inactive, still in the pyramid, so leaders' figures stay true) and
 * their activities' facts (type, time, quantity: the team's totals), and drops what could identify
 * them or where they were: skills, availability, the user link, the location consent, notes and
 * GPS points. Who they are lived in the audience contact, which the audience empties.
 *
 * A merge moves the other record's volunteer to the survivor. When both are volunteers it is
 * refused: each has its own place in the pyramid (a leader, the people they lead), goals, work
 * log and possibly a login, and one contact is one volunteer; choosing which leader, goals and
 * account the person keeps is staff's decision, not a merge's.
 */
export const volunteersPersonalData: PersonalDataHolder = {
  freeText: [{ table: 'volunteer_activities', column: 'notes', kind: 'activityNotes', record: 'volunteer_id' }],
  /** The login linked to the person's volunteer: their account, which auth erases with them. */
  async keys(q, personId) {
    const rows = await q.rows(db.selectFrom('volunteers').select('user_id').where('contact_id', '=', personId).where('user_id', 'is not', null));
    return { userIds: rows.flatMap((row) => (row.user_id ? [row.user_id] : [])) };
  },

  async export(q, personId) {
    const volunteers = await q.rows(
      db
        .selectFrom('volunteers')
        .select([
          'id',
          'user_id',
          'territory_id',
          'skills',
          'availability',
          'status',
          'leader_id',
          'goal_promised_votes',
          'goal_leads',
          'goal_posters',
          'joined_on',
          'source',
          'location_consent_at',
          'created_at',
        ])
        .where('contact_id', '=', personId)
        .where('erased_at', 'is', null),
    );
    const ids = volunteers.map((volunteer) => volunteer.id);
    const activities = ids.length
      ? await q.rows(
          db
            .selectFrom('volunteer_activities')
            .select(['id', 'type', 'occurred_at', 'duration_minutes', 'quantity', 'unit', 'territory_id', 'notes', 'lat', 'lng', 'event_id', 'poster_code', 'source'])
            .where('volunteer_id', 'in', ids)
            .orderBy('occurred_at'),
        )
      : [];
    return {
      volunteer: volunteers.map((volunteer) => ({
        id: volunteer.id,
        userId: volunteer.user_id ?? null,
        territoryId: volunteer.territory_id ?? null,
        skills: volunteer.skills,
        availability: volunteer.availability,
        status: volunteer.status,
        leaderId: volunteer.leader_id ?? null,
        goals: { promisedVotes: volunteer.goal_promised_votes, leads: volunteer.goal_leads, posters: volunteer.goal_posters },
        joinedOn: volunteer.joined_on,
        source: volunteer.source,
        locationConsentAt: volunteer.location_consent_at ?? null,
        createdAt: volunteer.created_at,
      })),
      activities: activities.map((activity) => ({
        id: activity.id,
        type: activity.type,
        occurredAt: activity.occurred_at,
        durationMinutes: activity.duration_minutes ?? null,
        quantity: activity.quantity ?? null,
        unit: activity.unit ?? null,
        territoryId: activity.territory_id ?? null,
        notes: activity.notes ?? null,
        location: activity.lat != null && activity.lng != null ? { lat: activity.lat, lng: activity.lng } : null,
        eventId: activity.event_id ?? null,
        posterCode: activity.poster_code ?? null,
        source: activity.source,
      })),
    };
  },

  async erase(q, personId) {
    const at = new Date();
    const ids = db.selectFrom('volunteers').select('id').where('contact_id', '=', personId);
    const activities = await q.write(
      db
        .updateTable('volunteer_activities')
        .set({ notes: null, lat: null, lng: null })
        .where('volunteer_id', 'in', ids)
        .where((row) => row.or([row('notes', 'is not', null), row('lat', 'is not', null)])),
    );
    const volunteers = await q.write(
      db
        .updateTable('volunteers')
        .set({
          user_id: null,
          skills: [],
          availability: [],
          status: 'inactive',
          location_consent_at: null,
          location_consent_text_id: null,
          location_consent_by: null,
          erased_at: at,
          updated_at: at,
        })
        .where('contact_id', '=', personId)
        .where('erased_at', 'is', null),
    );
    return { volunteers: volunteers.count, activitiesCleared: activities.count };
  },

  async merge(q, fromId, intoId) {
    const volunteers = await q.rows(db.selectFrom('volunteers').select(['id', 'contact_id']).where('contact_id', 'in', [fromId, intoId]).orderBy('id').forUpdate());
    const theirs = volunteers.filter((volunteer) => volunteer.contact_id === fromId);
    if (theirs.length && volunteers.length > theirs.length) {
      throw new MergeRefusedError(
        'volunteers',
        'Both contacts are volunteers, each with its own leader, team, goals, work log and login, and a contact is one volunteer: ' +
          'merging two volunteers is not supported, since which place in the pyramid the person keeps is for staff to decide.',
      );
    }
    const moved = theirs.length ? await q.write(db.updateTable('volunteers').set({ contact_id: intoId }).where('contact_id', '=', fromId).returning('id')) : { rows: [] };
    return { moved: { volunteers: moved.rows.map((row) => row.id) } };
  },

  async unmerge(q, moves, fromId, intoId) {
    const ids = moves.moved.volunteers ?? [];
    if (ids.length) await q.write(db.updateTable('volunteers').set({ contact_id: fromId }).where('id', 'in', ids).where('contact_id', '=', intoId));
  },
};
