import { roleAllowed, type Actor } from '../../kernel/auth/roles';
import { definePolicy } from '../../kernel/policy';

/** The part of an event its rules look at. */
export interface EventSubject {
  organiserId: string | null;
  createdById: string;
  status: string;
}

const isManager = (actor: Actor): boolean => roleAllowed(actor.role, ['manager']);
const organises = (actor: Actor, event: EventSubject): boolean => event.organiserId === actor.id || event.createdById === actor.id;

/**
 * Who may do what with the agenda. Everyone signed in reads events (public and internal; drafts
 * only their organiser and managers); managers create events, keep the inventory and choose the
 * reminder templates; an event's organiser edits it and runs its door (check-in, shifts, tasks,
 * allocations). Volunteers and brigade members answer for their own contact; viewers only read.
 */
export const agendaPolicy = definePolicy({
  read: { roles: [] },
  readDraft: {
    roles: [],
    check: (actor: Actor, event: EventSubject) => isManager(actor) || organises(actor, event),
    refusal: 'Only its organiser and managers see a draft event.',
  },
  create: { roles: ['manager'] },
  edit: {
    roles: ['manager', 'treasurer', 'brigade', 'volunteer'],
    check: (actor: Actor, event: EventSubject) => isManager(actor) || organises(actor, event),
    refusal: 'Only the event’s organiser or a manager may change it.',
  },
  /** Answering for any contact (staff taking RSVPs by phone); others answer for their own. */
  rsvpForOthers: { roles: ['manager'] },
  rsvp: { roles: ['manager', 'brigade', 'volunteer'] },
  manageInventory: { roles: ['manager'] },
  readInventory: { roles: ['manager', 'treasurer', 'brigade', 'volunteer'] },
  configure: { roles: ['manager'] },
  /** Tying a user account to the contact it is (so a volunteer can RSVP for themself). */
  linkAccounts: { roles: ['manager'] },
  /** A calendar address of one's own. */
  subscribe: { roles: [] },
  /** The live room: events created, changed, cancelled, and check-in counts. */
  follow: { roles: ['manager', 'treasurer', 'brigade', 'volunteer', 'viewer'] },
});

export { isManager, organises };
