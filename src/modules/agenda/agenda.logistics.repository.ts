import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Selectable } from 'kysely';
import { sql, tables, type Queries, type Sql } from '../../kernel/sql';
import { AgendaAllocationSchema, AgendaResourceSchema, AgendaTaskSchema } from './agenda.entities';

type LogisticsTables = InferKyselyDB<typeof AgendaResourceSchema | typeof AgendaAllocationSchema | typeof AgendaTaskSchema>;
const db = tables<LogisticsTables>();

// ───────────── resources

export interface ResourceRecord {
  id: string;
  name: string;
  category: string | null;
  quantity: number;
  unit: string | null;
  notes: string | null;
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const resourceColumns = ['id', 'name', 'category', 'quantity', 'unit', 'notes', 'active', 'created_at', 'updated_at'] as const;

function resourceOf(row: Pick<Selectable<LogisticsTables['agenda_resources']>, (typeof resourceColumns)[number]>): ResourceRecord {
  return {
    id: row.id,
    name: row.name,
    category: row.category ?? null,
    quantity: row.quantity,
    unit: row.unit ?? null,
    notes: row.notes ?? null,
    active: row.active,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function insertResource(q: Queries, resource: ResourceRecord): Promise<void> {
  await q.write(
    db.insertInto('agenda_resources').values({
      id: resource.id,
      name: resource.name,
      category: resource.category,
      quantity: resource.quantity,
      unit: resource.unit,
      notes: resource.notes,
      active: resource.active,
      created_at: resource.createdAt,
      updated_at: resource.updatedAt,
    }),
  );
}

export async function updateResource(q: Queries, resource: ResourceRecord): Promise<void> {
  await q.write(
    db
      .updateTable('agenda_resources')
      .set({
        name: resource.name,
        category: resource.category,
        quantity: resource.quantity,
        unit: resource.unit,
        notes: resource.notes,
        active: resource.active,
        updated_at: resource.updatedAt,
      })
      .where('id', '=', resource.id),
  );
}

/**
 * One resource; `lock` holds its row until the transaction ends. Every allocation of it, and every
 * change of its quantity, takes this lock first, so two requests never both count the same units.
 */
export async function findResource(q: Queries, id: string, lock = false): Promise<ResourceRecord | undefined> {
  let query = db.selectFrom('agenda_resources').select(resourceColumns).where('id', '=', id);
  if (lock) query = query.forUpdate();
  const row = await q.first(query);
  return row ? resourceOf(row) : undefined;
}

export async function listResources(q: Queries, filter: { active?: boolean | undefined; category?: string | undefined }): Promise<ResourceRecord[]> {
  let query = db.selectFrom('agenda_resources').select(resourceColumns).orderBy('name').orderBy('id');
  if (filter.active !== undefined) query = query.where('active', '=', filter.active);
  if (filter.category) query = query.where('category', '=', filter.category);
  return (await q.rows(query)).map(resourceOf);
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

export interface AllocationRecord {
  id: string;
  resourceId: string;
  eventId: string;
  quantity: number;
  startsAt: Date;
  endsAt: Date;
  notes: string | null;
  createdById: string | null;
  createdAt: Date;
}

const allocationSelect: Sql = sql`a.id, a.resource_id as "resourceId", a.event_id as "eventId", a.quantity, a.starts_at as "startsAt", a.ends_at as "endsAt",
  a.notes, a.created_by_id as "createdById", a.created_at as "createdAt", r.name as "resourceName", r.unit`;

export type AllocationWithResource = AllocationRecord & { resourceName: string; unit: string | null };

export async function insertAllocation(q: Queries, allocation: AllocationRecord): Promise<void> {
  await q.write(
    db.insertInto('agenda_allocations').values({
      id: allocation.id,
      resource_id: allocation.resourceId,
      event_id: allocation.eventId,
      quantity: allocation.quantity,
      starts_at: allocation.startsAt,
      ends_at: allocation.endsAt,
      notes: allocation.notes,
      created_by_id: allocation.createdById,
      created_at: allocation.createdAt,
    }),
  );
}

export async function allocationsOf(q: Queries, filter: { eventId?: string; resourceId?: string; id?: string }): Promise<AllocationWithResource[]> {
  const conditions: Sql[] = [sql`true`];
  if (filter.eventId) conditions.push(sql`a.event_id = ${filter.eventId}::uuid`);
  if (filter.resourceId) conditions.push(sql`a.resource_id = ${filter.resourceId}::uuid`);
  if (filter.id) conditions.push(sql`a.id = ${filter.id}::uuid`);
  return q.rows<AllocationWithResource>(sql`select ${allocationSelect} from agenda_allocations a join agenda_resources r on r.id = a.resource_id
    where ${sql.join(conditions, ' and ')} order by a.starts_at, a.id`);
}

export async function deleteAllocation(q: Queries, eventId: string, allocationId: string): Promise<boolean> {
  return (await q.write(db.deleteFrom('agenda_allocations').where('id', '=', allocationId).where('event_id', '=', eventId))).count > 0;
}

// ───────────── tasks

export interface TaskRecord {
  id: string;
  eventId: string;
  title: string;
  notes: string | null;
  assigneeId: string | null;
  dueAt: Date | null;
  doneAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const taskColumns = ['id', 'event_id', 'title', 'notes', 'assignee_id', 'due_at', 'done_at', 'created_at', 'updated_at'] as const;

function taskOf(row: Pick<Selectable<LogisticsTables['agenda_tasks']>, (typeof taskColumns)[number]>): TaskRecord {
  return {
    id: row.id,
    eventId: row.event_id,
    title: row.title,
    notes: row.notes ?? null,
    assigneeId: row.assignee_id ?? null,
    dueAt: row.due_at ?? null,
    doneAt: row.done_at ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function insertTask(q: Queries, task: TaskRecord): Promise<void> {
  await q.write(
    db.insertInto('agenda_tasks').values({
      id: task.id,
      event_id: task.eventId,
      title: task.title,
      notes: task.notes,
      assignee_id: task.assigneeId,
      due_at: task.dueAt,
      done_at: task.doneAt,
      created_at: task.createdAt,
      updated_at: task.updatedAt,
    }),
  );
}

export async function updateTask(q: Queries, task: TaskRecord): Promise<void> {
  await q.write(
    db
      .updateTable('agenda_tasks')
      .set({ title: task.title, notes: task.notes, assignee_id: task.assigneeId, due_at: task.dueAt, done_at: task.doneAt, updated_at: task.updatedAt })
      .where('id', '=', task.id),
  );
}

export async function findTask(q: Queries, eventId: string, taskId: string): Promise<TaskRecord | undefined> {
  const row = await q.first(db.selectFrom('agenda_tasks').select(taskColumns).where('id', '=', taskId).where('event_id', '=', eventId));
  return row ? taskOf(row) : undefined;
}

/** Open tasks first by due time (undated last), then the done ones. */
export async function tasksOf(q: Queries, eventId: string): Promise<TaskRecord[]> {
  const rows = await q.rows<Parameters<typeof taskOf>[0]>(sql`select ${sql.raw(taskColumns.join(', '))} from agenda_tasks where event_id = ${eventId}::uuid
    order by done_at is not null, due_at nulls last, created_at, id`);
  return rows.map(taskOf);
}

export async function deleteTask(q: Queries, eventId: string, taskId: string): Promise<boolean> {
  return (await q.write(db.deleteFrom('agenda_tasks').where('id', '=', taskId).where('event_id', '=', eventId))).count > 0;
}
