import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { camelRow, snakeRow, type CamelCased } from '../../kernel/rows';
import { sql, tables, type Queries } from '../../kernel/sql';
import { AgendaAllocationSchema, AgendaResourceSchema, AgendaTaskSchema } from './agenda.entities';

type LogisticsTables = InferKyselyDB<typeof AgendaResourceSchema | typeof AgendaAllocationSchema | typeof AgendaTaskSchema>;
const db = tables<LogisticsTables>();

// ───────────── resources

type ResourceRow = Selectable<LogisticsTables['agenda_resources']>;
export type ResourceRecord = CamelCased<ResourceRow>;

export async function insertResource(q: Queries, resource: ResourceRecord): Promise<void> {
  await q.write(db.insertInto('agenda_resources').values(snakeRow(resource)));
}

export async function updateResource(q: Queries, resource: ResourceRecord): Promise<void> {
  const { id, createdAt: _createdAt, ...changed } = resource;
  await q.write(db.updateTable('agenda_resources').set(snakeRow(changed)).where('id', '=', id));
}

/**
 * One resource; `lock` holds its row until the transaction ends. Every allocation of it, and every
 * change of its quantity, takes this lock first, so two requests never both count the same units.
 */
export async function findResource(q: Queries, id: string, lock = false): Promise<ResourceRecord | undefined> {
  let query = db.selectFrom('agenda_resources').selectAll().where('id', '=', id);
  if (lock) query = query.forUpdate();
  const row = await q.first(query);
  return row && camelRow(row);
}

export async function listResources(q: Queries, filter: { active?: boolean | undefined; category?: string | undefined }): Promise<ResourceRecord[]> {
  let query = db.selectFrom('agenda_resources').selectAll().orderBy('name').orderBy('id');
  if (filter.active !== undefined) query = query.where('active', '=', filter.active);
  if (filter.category) query = query.where('category', '=', filter.category);
  return (await q.rows(query)).map((row) => camelRow(row));
}

/**
 * The most units of a resource held at any one moment of [from, to) by events that are not
 * cancelled (leaving out one allocation, the one being changed). Holdings only rise where an
 * allocation starts, so the peak is found at the start of the span or at one of those starts.
 */
export async function peakAllocated(q: Queries, resourceId: string, from: Date, to: Date, excluding: string | null = null): Promise<number> {
  const row = await q.first<{ peak: number }>(sql`
    with held as (
      select a.starts_at, a.ends_at, a.quantity from agenda_allocations a join agenda_events e on e.id = a.event_id
      where a.resource_id = ${resourceId}::uuid and e.status <> 'cancelled' and a.starts_at < ${to}::timestamptz and a.ends_at > ${from}::timestamptz
        and a.id is distinct from ${excluding}::uuid
    ),
    moments as (select greatest(starts_at, ${from}::timestamptz) as at from held union select ${from}::timestamptz)
    select coalesce(max((select sum(h.quantity) from held h where h.starts_at <= m.at and h.ends_at > m.at)), 0)::int as peak from moments m`);
  return row?.peak ?? 0;
}

// ───────────── allocations

export type AllocationRecord = CamelCased<Selectable<LogisticsTables['agenda_allocations']>>;

export async function insertAllocation(q: Queries, allocation: AllocationRecord): Promise<void> {
  await q.write(db.insertInto('agenda_allocations').values(snakeRow(allocation)));
}

/** Allocations with their resource's name and unit, in time order. */
export async function allocationsOf(q: Queries, filter: { eventId?: string; resourceId?: string; id?: string }) {
  let query = db
    .selectFrom('agenda_allocations as a')
    .innerJoin('agenda_resources as r', 'r.id', 'a.resource_id')
    .selectAll('a')
    .select(['r.name as resource_name', 'r.unit'])
    .orderBy('a.starts_at')
    .orderBy('a.id');
  if (filter.eventId) query = query.where('a.event_id', '=', filter.eventId);
  if (filter.resourceId) query = query.where('a.resource_id', '=', filter.resourceId);
  if (filter.id) query = query.where('a.id', '=', filter.id);
  return (await q.rows(query)).map((row) => camelRow(row));
}

export type AllocationWithResource = Awaited<ReturnType<typeof allocationsOf>>[number];

export async function deleteAllocation(q: Queries, eventId: string, allocationId: string): Promise<boolean> {
  return (await q.write(db.deleteFrom('agenda_allocations').where('id', '=', allocationId).where('event_id', '=', eventId))).count > 0;
}

// ───────────── tasks

export type TaskRecord = CamelCased<Selectable<LogisticsTables['agenda_tasks']>>;

export async function insertTask(q: Queries, task: TaskRecord): Promise<void> {
  await q.write(db.insertInto('agenda_tasks').values(snakeRow(task)));
}

export async function updateTask(q: Queries, task: TaskRecord): Promise<void> {
  const { id, eventId: _eventId, createdAt: _createdAt, ...changed } = task;
  await q.write(db.updateTable('agenda_tasks').set(snakeRow(changed)).where('id', '=', id));
}

export async function findTask(q: Queries, eventId: string, taskId: string): Promise<TaskRecord | undefined> {
  const row = await q.first(db.selectFrom('agenda_tasks').selectAll().where('id', '=', taskId).where('event_id', '=', eventId));
  return row && camelRow(row);
}

/** Open tasks first by due time (undated last), then the done ones. */
export async function tasksOf(q: Queries, eventId: string): Promise<TaskRecord[]> {
  const query = db
    .selectFrom('agenda_tasks')
    .selectAll()
    .where('event_id', '=', eventId)
    .orderBy((row) => row('done_at', 'is not', null))
    .orderBy('due_at', (order) => order.asc().nullsLast())
    .orderBy('created_at')
    .orderBy('id');
  return (await q.rows(query)).map((row) => camelRow(row));
}

export async function deleteTask(q: Queries, eventId: string, taskId: string): Promise<boolean> {
  return (await q.write(db.deleteFrom('agenda_tasks').where('id', '=', taskId).where('event_id', '=', eventId))).count > 0;
}
