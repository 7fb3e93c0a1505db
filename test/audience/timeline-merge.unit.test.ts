import type { AppDeps } from '../../src/kernel/context';
import type { PersonTimelineSection, TimelineEntry, TimelineRequest } from '../../src/kernel/module';
import type { Queries } from '../../src/kernel/sql';
import { personTimeline } from '../../src/modules/audience/audience.timeline';
import { audiencePolicy } from '../../src/modules/audience/audience.policy';
import { allowedRoles } from '../helpers/policy';

/**
 * The merge of every module's facts into one timeline, without a database: modules here hold
 * facts in memory and answer as a module's statement would (newest first, strictly before the
 * cursor's instant, at most `limit`). Facts are stored to the microsecond, as PostgreSQL does, and
 * many share a millisecond, within a module and across modules.
 */

interface StoredFact {
  /** Microseconds since the epoch. */
  us: number;
  kind: string;
  refId: string;
}

/** What a module's statement does: `at < before` on microseconds, newest first, a limit; the driver truncates to milliseconds. */
function section(module: string, facts: StoredFact[]): PersonTimelineSection {
  return {
    module,
    async items(_q: Queries, request: TimelineRequest): Promise<TimelineEntry[]> {
      const beforeUs = request.before ? request.before.getTime() * 1000 : Number.POSITIVE_INFINITY;
      return facts
        .filter((fact) => fact.us < beforeUs)
        .sort((a, b) => b.us - a.us)
        .slice(0, request.limit)
        .map((fact) => ({ at: new Date(Math.floor(fact.us / 1000)), kind: fact.kind, title: fact.kind, refId: fact.refId }));
    },
  };
}

/** A deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function world(seed: number, perModule: number, maxPerMillisecond: number) {
  const next = random(seed);
  const base = Date.UTC(2026, 0, 1) * 1000;
  const sections: PersonTimelineSection[] = [];
  const all: { module: string; fact: StoredFact }[] = [];
  for (const module of ['audience', 'email', 'pqrs', 'whatsapp']) {
    const facts: StoredFact[] = [];
    let ms = 0;
    while (facts.length < perModule) {
      ms += 1 + Math.floor(next() * 3); // nearby milliseconds, so modules interleave and collide
      const inThisMs = 1 + Math.floor(next() * maxPerMillisecond);
      for (let i = 0; i < inThisMs && facts.length < perModule; i++) {
        facts.push({ us: base + ms * 1000 + Math.floor(next() * 1000), kind: `k${i % 2}`, refId: `${module}-${facts.length}` });
      }
    }
    sections.push(section(module, facts));
    for (const fact of facts) all.push({ module, fact });
  }
  return { sections, all };
}

const actor = { id: '01960000-0000-7000-8000-000000000001', role: 'manager' as const };
const person = { contactId: '01960000-0000-7000-8000-000000000002', origins: [] };

async function walk(sections: PersonTimelineSection[], limit: number): Promise<{ seen: string[]; times: number[]; pages: number }> {
  const deps = { db: {} as Queries, personTimeline: sections } as unknown as Pick<AppDeps, 'db' | 'personTimeline'>;
  const seen: string[] = [];
  const times: number[] = [];
  let before: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await personTimeline(deps, person, actor, { before, limit });
    pages++;
    for (const item of page.data) {
      seen.push(`${item.module}:${item.refId}`);
      times.push(Date.parse(item.at));
    }
    if (!page.nextCursor || pages > 1000) return { seen, times, pages };
    before = page.nextCursor;
  }
}

describe('personTimeline', () => {
  it.each([
    [1, 1],
    [2, 2],
    [3, 2],
    [5, 4],
    [7, 3],
    [50, 6],
    [200, 6],
  ])('pages with limit %i (up to %i facts of a module per millisecond) give every fact once, newest first', async (limit, perMillisecond) => {
    for (const seed of [1, 2, 3]) {
      const { sections, all } = world(seed * 7919 + limit, 40, perMillisecond);
      const { seen, times } = await walk(sections, limit);
      expect(new Set(seen).size).toBe(seen.length);
      expect([...seen].sort()).toEqual(all.map(({ module, fact }) => `${module}:${fact.refId}`).sort());
      expect(times).toEqual([...times].sort((a, b) => b - a));
    }
  });

  it('ends pages between milliseconds, passing the limit only to finish one', async () => {
    const same = Date.UTC(2026, 0, 1) * 1000;
    const sections = ['a', 'b', 'c'].map((module) => section(module, [{ us: same + 10, kind: 'x', refId: `${module}1` }]));
    const deps = { db: {} as Queries, personTimeline: sections } as unknown as Pick<AppDeps, 'db' | 'personTimeline'>;
    const page = await personTimeline(deps, person, actor, { limit: 2 });
    expect(page.data.map((item) => item.refId)).toEqual(['c1', 'b1', 'a1']);
  });

  it('refuses a cursor it did not give out', async () => {
    const deps = { db: {} as Queries, personTimeline: [] } as unknown as Pick<AppDeps, 'db' | 'personTimeline'>;
    for (const before of ['x', Buffer.from('["not a date"]').toString('base64url'), Buffer.from('{}').toString('base64url')]) {
      await expect(personTimeline(deps, person, actor, { before, limit: 5 })).rejects.toMatchObject({ status: 400, code: 'validation_failed' });
    }
  });
});

describe('audiencePolicy', () => {
  it('lets managers and admins list, read, correct and annotate people; nobody else', () => {
    for (const action of ['listPeople', 'readPerson', 'correctPerson', 'writeNote'] as const) expect(allowedRoles(audiencePolicy, action)).toEqual(['admin', 'manager']);
  });

  it('lets a note be deleted by its author or an admin', () => {
    const note = { authorId: 'u1' };
    expect(audiencePolicy.allows({ id: 'u1', role: 'manager' }, 'deleteNote', note)).toBe(true);
    expect(audiencePolicy.allows({ id: 'u2', role: 'manager' }, 'deleteNote', note)).toBe(false);
    expect(audiencePolicy.allows({ id: 'u3', role: 'admin' }, 'deleteNote', note)).toBe(true);
    expect(audiencePolicy.allows({ id: 'u2', role: 'manager' }, 'deleteNote', { authorId: null })).toBe(false);
  });
});
