import type { Actor } from '../../kernel/auth/roles';
import { definePolicy } from '../../kernel/policy';
import { sql, type Sql } from '../../kernel/sql-tag';

/** Whether the actor acts for the whole team (managers, admins) rather than for their own people. */
export const coversEveryone = (actor: Actor): boolean => actor.role === 'admin' || actor.role === 'manager';

// A volunteer's team, two ways side by side: the set the service checks a batch against, and the
// same rule inside a statement (the activity list's filter). test/volunteers/scope.test.ts proves
// they agree on a generated tree.

/** The volunteers a user answers for: the volunteer linked to them and everyone under them, at any depth. */
export function teamOfUserSql(userId: string): Sql<{ id: string }> {
  return sql<{ id: string }>`with recursive team(id) as (
      select id from volunteers where user_id = ${userId}::uuid and erased_at is null
      union select v.id from volunteers v join team on v.leader_id = team.id
    ) select id from team`;
}

/** The same rule over a loaded tree (id → leader id): `self` and everyone whose chain of leaders reaches it. */
export function teamOf(self: string | undefined, leaders: ReadonlyMap<string, string | null>): Set<string> {
  const team = new Set<string>();
  if (!self) return team;
  for (const id of leaders.keys()) {
    const seen = new Set<string>();
    for (let at: string | null | undefined = id; at && !seen.has(at); at = leaders.get(at)) {
      seen.add(at);
      if (at === self) {
        team.add(id);
        break;
      }
    }
  }
  return team;
}

/**
 * Managers run the team: they register, change and erase volunteers and see their personal data.
 * A volunteer or brigade member with a linked account logs work for themself, and a leader for
 * their people (checked by the service against `teamOfUserSql`). Screens (viewers) see the
 * pyramid and the leaderboard, which name volunteers but hold no contact details.
 */
export const volunteersPolicy = definePolicy({
  read: { roles: ['manager'] },
  manage: { roles: ['manager'] },
  logActivity: { roles: ['manager', 'volunteer', 'brigade'] },
  readActivities: { roles: ['manager', 'volunteer', 'brigade'] },
  readPyramid: { roles: ['manager', 'viewer'] },
  readLeaderboard: { roles: ['manager', 'viewer', 'volunteer', 'brigade'] },
});
