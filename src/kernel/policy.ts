import { rolePermitted, type Actor, type Role } from './auth/roles';
import { ForbiddenError } from './errors';

/**
 * One action a module allows: the roles that may attempt it (`admin` always may; an empty list
 * admits every signed-in role), and optionally
 * a check on the object it acts on (a brigade member's own station, say). Routes take `roles` as
 * their access, socket rooms take it as their rule, and services call `authorize` with the object.
 */
export interface Permission<Subject = undefined> {
  roles: readonly Role[];
  /** Object-level rule, after the role's: true when this actor may act on this subject. */
  check?: (actor: Actor, subject: Subject) => boolean;
  /** What a refusal says (403). */
  refusal?: string;
}

type SubjectOf<P> = P extends { check: (actor: Actor, subject: infer Subject) => boolean } ? Subject : undefined;

export interface Policy<Actions extends Record<string, Permission<never>>> {
  /** The roles that may attempt the action: a route's `access`, a room rule's `roles`. */
  roles<A extends keyof Actions>(action: A): readonly Role[];
  /** Whether the actor may do it (to this subject, when the action has an object-level rule). */
  allows<A extends keyof Actions>(actor: Actor, action: A, ...subject: SubjectOf<Actions[A]> extends undefined ? [] : [SubjectOf<Actions[A]>]): boolean;
  /** `allows`, or a 403 problem. */
  authorize<A extends keyof Actions>(actor: Actor, action: A, ...subject: SubjectOf<Actions[A]> extends undefined ? [] : [SubjectOf<Actions[A]>]): void;
}

/**
 * A module's authorisation rules in one place (`<module>.policy.ts`), as pure functions that can
 * be unit-tested apart from routes: `definePolicy({ manageStations: { roles: ['manager'] },
 * reportOn: { roles: ['manager', 'brigade'], check: (actor, station) => … } })`.
 */
export function definePolicy<Actions extends Record<string, Permission<never>>>(actions: Actions): Policy<Actions> {
  const allows = (actor: Actor, action: keyof Actions, subject?: unknown): boolean => {
    const permission = actions[action] as Permission<unknown>;
    if (!rolePermitted(actor.role, permission.roles)) return false;
    return permission.check ? permission.check(actor, subject) : true;
  };
  return {
    roles: (action) => actions[action]!.roles,
    allows: (actor, action, ...subject) => allows(actor, action, subject[0]),
    authorize: (actor, action, ...subject) => {
      if (!allows(actor, action, subject[0])) throw new ForbiddenError((actions[action] as Permission<unknown>).refusal);
    },
  };
}
