import type { z } from 'zod';
import { WEEKDAYS } from './volunteers.entities';
import type { ActivityRecord, VolunteerRecord, VolunteerListRecord } from './volunteers.repository';
import type { activityView, volunteerRowView, volunteerView } from './volunteers.schemas';

/** `{ sat: ['morning'] }` → `['sat:morning']`, in weekday order. */
export function availabilityTokens(availability: Partial<Record<string, readonly string[]>>): string[] {
  return WEEKDAYS.flatMap((day) => [...new Set(availability[day] ?? [])].map((slot) => `${day}:${slot}`));
}

export function availabilityObject(tokens: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const token of tokens) {
    const [day, slot] = token.split(':') as [string, string];
    (out[day] ??= []).push(slot);
  }
  return out;
}

export function presentVolunteer(volunteer: VolunteerRecord): z.input<typeof volunteerView> {
  return {
    id: volunteer.id,
    contactId: volunteer.contactId,
    name: volunteer.name,
    phone: volunteer.phone,
    email: volunteer.email,
    documentId: volunteer.documentId,
    userId: volunteer.userId,
    territoryId: volunteer.territoryId,
    skills: volunteer.skills,
    availability: availabilityObject(volunteer.availability),
    status: volunteer.status,
    leaderId: volunteer.leaderId,
    goals: { promisedVotes: volunteer.goalPromisedVotes, leads: volunteer.goalLeads, posters: volunteer.goalPosters },
    joinedOn: volunteer.joinedOn,
    source: volunteer.source,
    locationConsent:
      volunteer.locationConsentAt && volunteer.locationConsentTextId ? { at: volunteer.locationConsentAt.toISOString(), textId: volunteer.locationConsentTextId } : null,
    createdAt: volunteer.createdAt.toISOString(),
    updatedAt: volunteer.updatedAt.toISOString(),
  };
}

export interface Reliability {
  committed: number;
  attended: number;
  noShow: number;
}

export function presentRow(row: VolunteerListRecord, reliability: Reliability | undefined): z.input<typeof volunteerRowView> {
  return {
    ...presentVolunteer(row),
    active: row.activityCount > 0,
    activityCount: row.activityCount,
    lastActivityAt: row.lastActivityAt ? row.lastActivityAt.toISOString() : null,
    reliability: {
      committed: reliability?.committed ?? 0,
      attended: reliability?.attended ?? 0,
      noShow: reliability?.noShow ?? 0,
      score: reliability && reliability.committed > 0 ? Math.round((reliability.attended / reliability.committed) * 1000) / 1000 : null,
    },
  };
}

export function presentActivity(activity: ActivityRecord): z.input<typeof activityView> {
  return {
    id: activity.id,
    clientId: activity.clientId,
    source: activity.source,
    volunteerId: activity.volunteerId,
    type: activity.type,
    occurredAt: activity.occurredAt.toISOString(),
    durationMinutes: activity.durationMinutes,
    quantity: activity.quantity,
    unit: activity.unit,
    territoryId: activity.territoryId,
    notes: activity.notes,
    location: activity.lat !== null && activity.lng !== null ? { lat: activity.lat, lng: activity.lng } : null,
    eventId: activity.eventId,
    posterCode: activity.posterCode,
    recordedById: activity.recordedById,
    createdAt: activity.createdAt.toISOString(),
  };
}
