import type { EntitySchema } from '@mikro-orm/core';
import type { ApiRouter } from './http/router';
import type { JobDefinition } from './jobs';
import type { RoomRule, SocketCommand } from './realtime';
import type { Logger } from 'pino';
import type { AppDeps } from './context';
import { AppError } from './errors';
import { safeErrorFields } from './http/problem';
import type { Queries, Sql } from './sql';
import type { Actor } from './auth/roles';

/** What a module contributes to the process; src/modules/index.ts lists them all. */
export interface ModuleManifest {
  name: string;
  // Entity schemas of any shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  entities: EntitySchema<any, any>[];
  routers?: ApiRouter[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  jobs?: JobDefinition<any>[];
  /** The rooms its sockets may join, and who may; built once the process's dependencies exist. */
  rooms?: (deps: AppDeps) => RoomRule[];
  /** Requests clients may send over their socket; built once the process's dependencies exist. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  socketCommands?: (deps: AppDeps) => SocketCommand<any>[];
  /**
   * Runs once in each process that consumes jobs, after the workers have started: the place to
   * re-enqueue unfinished work recorded in the database (jobs lost with Redis or a crash) and to
   * start work that keeps running beside the jobs (a sweeper, a simulator). A task it returns is
   * stopped at shutdown, before the workers close.
   */
  onWorkersStarted?: (deps: AppDeps) => Promise<BackgroundTask | void>;
  /** What the module holds about one person, for a data subject's request to see or erase it. */
  personalData?: PersonalDataHolder;
  /** What the module has to say on a person's page: its dated facts about them, and the names of the origins it owns. */
  personTimeline?: PersonTimelineHolder;
  /** What in the module's tables points at a territory, so that deleting one still in use is refused naming it. */
  territoryReferences?: TerritoryReferenceHolder;
}

/** A value that serialises to JSON (a date becomes its ISO string). */
export type JsonValue = string | number | boolean | null | Date | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * What identifies a person besides their contact id, gathered from every module before their data
 * is exported or erased: rows that carry these without pointing at the contact (a voter imported
 * by cédula, a login with their email, a donation under their cédula) are theirs too.
 */
export interface PersonKeys {
  /** Cédulas, digits only. */
  documentIds: readonly string[];
  /** E.164 (`+573001234567`), the form every module stores a phone in. */
  phones: readonly string[];
  /** Lower-cased. */
  emails: readonly string[];
  /** Login accounts known to be the person's (linked to their contact). */
  userIds: readonly string[];
}

export const NO_PERSON_KEYS: PersonKeys = { documentIds: [], phones: [], emails: [], userIds: [] };

/** What a module's `erase` is given besides the transaction: who the person is, and where to put work that must wait for the commit. */
export interface Erasure {
  keys: PersonKeys;
  /** Work outside the database (files, sessions, caches) to run once the erasure has committed; a failure is logged, not thrown. */
  afterCommit(task: (deps: AppDeps) => Promise<void>): void;
  /** Rows the module keeps with the person's data because a law obliges it (the legal basis, in one sentence); reported to staff with the erasure. */
  retain(kind: string, count: number, basis: string): void;
}

/** A column of free text the module's users write about anyone (a note, a description), on a table keyed by `id`. */
export interface FreeTextColumn {
  table: string;
  column: string;
  /** What the column is, for the erasure's counts and mentions (`incidentDescriptions`). */
  kind: string;
  /** The column naming the record whose screen shows the text (a note's contact); absent: the row itself. */
  record?: string;
  /** A `jsonb` list of texts (a WhatsApp template's values): each text is searched and cleared. */
  list?: boolean;
  /** A condition (code-written SQL on the table's columns) for the rows that can hold such text, to spare reading the rest. */
  where?: string;
}

/**
 * A module's part in answering a person's rights over their data (to know it, to have it
 * suppressed): both run on the caller's transaction and touch only the module's own tables.
 */
export interface PersonalDataHolder {
  /**
   * Columns where people write about others: at an erasure the person's phones, emails and cédulas
   * are cut out of them wherever they appear, and rows naming them in full are reported for staff
   * to read (`kernel/free-text.ts`). Code-written names only, never input.
   */
  freeText?: readonly FreeTextColumn[];
  /** The person's identifiers the module holds on rows linked to them (a linked voter's cédula, a linked login), added to `PersonKeys`. */
  keys?(q: Queries, personId: string): Promise<Partial<PersonKeys>>;
  /** Everything the module holds about the person, by kind (`{ leads: [...] }`): rows linked to them, and rows carrying their `keys`. */
  export(q: Queries, personId: string, keys: PersonKeys): Promise<Record<string, JsonValue>>;
  /**
   * Deletes or anonymises it (rows linked to the person, and rows carrying their keys) so the
   * module's figures stay true, and says how many rows of each kind changed. Runs while the
   * person's own record is still whole, so it can be read.
   */
  erase(q: Queries, personId: string, erasure: Erasure): Promise<Record<string, number>>;
  /**
   * Two records turned out to be one person (audience's merge): re-points the module's rows of
   * `fromId` at `intoId`, on the merge's transaction, where the module's own rules allow (two rows
   * a unique key forbids are combined, or one of them kept), or throws a `MergeRefusedError` saying
   * why the module cannot hold both as one. Returns what `unmerge` needs to put back exactly what
   * moved. A module without it holds nothing that points at a contact.
   */
  merge?(q: Queries, fromId: string, intoId: string): Promise<MergeMoves>;
  /** Undoes `merge` (within audience's undo window): the rows in `moves` point at `fromId` again, combined rows are split as they were. */
  unmerge?(q: Queries, moves: MergeMoves, fromId: string, intoId: string): Promise<void>;
}

/** What a module's `merge` did, kept with the merge so that its undo puts back exactly that. */
export interface MergeMoves {
  /** Ids of the rows that now point at the surviving contact, by table: `unmerge` points exactly these back. Never personal data. */
  moved: Record<string, string[]>;
  /** Rows combined or left behind to keep the module's unique rules, by kind: counts for the audit. */
  combined?: Record<string, number>;
  /**
   * What else `unmerge` needs: a removed row's values, a kept row's values before the merge. It may
   * name the person, so audience keeps it only for the undo window and clears it when the person is erased.
   */
  undo?: { [key: string]: JsonValue };
}

/** A module cannot hold two records of one person as one (409 `merge_refused`, naming the module): the detail says why and what staff can do first. */
export class MergeRefusedError extends AppError {
  constructor(
    readonly module: string,
    detail: string,
  ) {
    super(409, 'merge_refused', 'Merge refused', detail, undefined, { module });
  }
}

/** A module's personal-data holder, under the module's name. */
export interface PersonalDataSection extends PersonalDataHolder {
  module: string;
}

/** The holders of the process's modules, in the modules' order. */
export function personalDataSections(modules: readonly ModuleManifest[]): PersonalDataSection[] {
  return modules.flatMap((module) => (module.personalData ? [{ module: module.name, ...module.personalData }] : []));
}

/** One dated fact about a person, as a module tells it (audience adds the module's name). */
export interface TimelineEntry {
  at: Date;
  /** What happened, in the module's words (`message_in`, `request_filed`…). */
  kind: string;
  /** Spanish, short, for staff: what happened, with no more personal data than the fact needs. */
  title: string;
  /** The module's record it is about (a message, a request), when there is one. */
  refId: string | null;
  detail?: Record<string, JsonValue>;
}

export interface TimelineRequest {
  contactId: string;
  /** Where the person came from (audience's record), for a module that finds its rows through it. */
  origins: readonly { kind: string; refId: string }[];
  /** Who is looking: a module leaves out what their role may not see. */
  actor: Actor;
  /** Only facts strictly before this instant (paging back); null for all of them. */
  before: Date | null;
  /** At most this many, the newest. */
  limit: number;
}

/**
 * A module's part of a person's page (audience's `GET /api/audience/contacts/:id`): its facts
 * about the person, newest first, read from its own tables on the caller's `q`; and, for each kind
 * of origin it owns (`qr_campaign`, `pqrs`…), what to call one: a read-only scalar SQL expression
 * of the origin's ref id (`(select name from qr_campaigns where id = ${ref})`), which audience
 * embeds in its own statements, so the people list names origins without a round trip per module.
 */
export interface PersonTimelineHolder {
  items(q: Queries, request: TimelineRequest): Promise<TimelineEntry[]>;
  originNames?: Readonly<Record<string, (refId: Sql<never>) => Sql<never>>>;
}

/** A module's timeline holder, under the module's name. */
export interface PersonTimelineSection extends PersonTimelineHolder {
  module: string;
}

/** The timeline holders of the process's modules, in the modules' order. */
export function personTimelineSections(modules: readonly ModuleManifest[]): PersonTimelineSection[] {
  return modules.flatMap((module) => {
    const holder = module.personTimeline;
    if (!holder) return [];
    return [{ module: module.name, items: holder.items, ...(holder.originNames ? { originNames: holder.originNames } : {}) }];
  });
}

/** Rows of one kind that point at a territory: `{ count: 3, one: 'puesto', many: 'puestos' }` (Spanish nouns, for staff). */
export interface TerritoryReference {
  count: number;
  one: string;
  many: string;
}

/**
 * A module's part of the check before a territory is deleted: how many of its rows point at it
 * (only kinds with a count above zero need be listed), read from its own tables on the caller's `q`.
 */
export type TerritoryReferenceHolder = (q: Queries, territoryId: string) => Promise<TerritoryReference[]>;

/** A module's territory-reference holder, under the module's name. */
export interface TerritoryReferenceSection {
  module: string;
  references: TerritoryReferenceHolder;
}

/** The territory-reference holders of the process's modules, in the modules' order. */
export function territoryReferenceSections(modules: readonly ModuleManifest[]): TerritoryReferenceSection[] {
  return modules.flatMap((module) => (module.territoryReferences ? [{ module: module.name, references: module.territoryReferences }] : []));
}

export interface BackgroundTask {
  stop(): Promise<void>;
}

/**
 * Background work on a fixed beat, for `onWorkersStarted`: `work` runs every `intervalMs`, never
 * two at once (a slow run skips beats rather than piling up), and a failure is logged and the beat
 * goes on. `stop()` ends the beat and waits for a run in progress.
 */
export function repeatEvery(logger: Logger, task: string, intervalMs: number, work: () => Promise<void>): BackgroundTask {
  let running: Promise<void> | undefined;
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped || running) return;
    running = work()
      .catch((error: unknown) => logger.warn({ task, ...safeErrorFields(error) }, 'background task failed'))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
