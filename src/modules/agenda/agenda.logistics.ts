import type { z } from 'zod';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Actor } from '../../kernel/auth/roles';
import { ConflictError, ForbiddenError, NotFoundError, invalidField } from '../../kernel/errors';
import { newId } from '../../kernel/ids';
import type { Queries } from '../../kernel/sql';
import { findUser } from '../auth';
import { agendaPolicy } from './agenda.policy';
import * as logistics from './agenda.logistics.repository';
import type { AllocationWithResource, ResourceRecord, TaskRecord } from './agenda.logistics.repository';
import type { AllocationInput, CreateResourceInput, CreateTaskInput, UpdateResourceInput, UpdateTaskInput, resourceListView } from './agenda.schemas';
import { visibleEvent, type Deps } from './agenda.service';

/** How far ahead a resource's future allocations are looked at when its quantity is lowered. */
const HORIZON_MS = 10 * 365 * 86_400_000;
const DEFAULT_WINDOW_MS = 30 * 86_400_000;

// ───────────── resources

function presentResource(resource: ResourceRecord, allocated: number) {
  return {
    id: resource.id,
    name: resource.name,
    category: resource.category,
    quantity: resource.quantity,
    unit: resource.unit,
    notes: resource.notes,
    active: resource.active,
    allocated,
    available: resource.quantity - allocated,
  };
}

function nameTaken(error: unknown, name: string): never {
  if (error instanceof UniqueConstraintViolationException) throw new ConflictError(`The inventory already has a resource named “${name}”.`, 'resource_exists');
  throw error;
}

export async function createResource(deps: Deps, input: CreateResourceInput) {
  const now = new Date();
  const resource: ResourceRecord = {
    id: newId(),
    name: input.name,
    category: input.category ?? null,
    quantity: input.quantity,
    unit: input.unit ?? null,
    notes: input.notes ?? null,
    active: input.active ?? true,
    createdAt: now,
    updatedAt: now,
  };
  await logistics.insertResource(deps.db, resource).catch((error: unknown) => nameTaken(error, input.name));
  return presentResource(resource, 0);
}

export async function listResources(
  deps: Deps,
  query: { active?: boolean | undefined; category?: string | undefined; from?: string | undefined; to?: string | undefined },
): Promise<z.input<typeof resourceListView>> {
  const from = query.from ? new Date(query.from) : new Date();
  const to = query.to ? new Date(query.to) : new Date(from.getTime() + DEFAULT_WINDOW_MS);
  if (to <= from) throw invalidField('query.to', 'to must be after from.');
  const resources = await logistics.listResources(deps.db, query);
  const data = [];
  for (const resource of resources) data.push(presentResource(resource, await logistics.peakAllocated(deps.db, resource.id, from, to)));
  return { data, window: { from: from.toISOString(), to: to.toISOString() } };
}

/** Changes a resource; lowering its quantity below what future events already hold is a 409. */
export async function changeResource(deps: Deps, id: string, input: UpdateResourceInput) {
  const now = new Date();
  return deps.db
    .transaction(async (tx) => {
      const resource = await logistics.findResource(tx, id, true);
      if (!resource) throw new NotFoundError('No resource has this id.');
      const next: ResourceRecord = {
        ...resource,
        name: input.name ?? resource.name,
        category: input.category === undefined ? resource.category : input.category,
        quantity: input.quantity ?? resource.quantity,
        unit: input.unit === undefined ? resource.unit : input.unit,
        notes: input.notes === undefined ? resource.notes : input.notes,
        active: input.active ?? resource.active,
        updatedAt: now,
      };
      const held = await logistics.peakAllocated(tx, id, now, new Date(now.getTime() + HORIZON_MS));
      if (next.quantity < held) {
        throw new ConflictError(`Upcoming events hold up to ${held} of this resource at once: free some before lowering the quantity to ${next.quantity}.`, 'over_allocated');
      }
      await logistics.updateResource(tx, next);
      return presentResource(next, held);
    })
    .catch((error: unknown) => nameTaken(error, input.name ?? ''));
}

export async function resourceAllocations(deps: Deps, id: string) {
  if (!(await logistics.findResource(deps.db, id))) throw new NotFoundError('No resource has this id.');
  return { data: (await logistics.allocationsOf(deps.db, { resourceId: id })).map(presentAllocation) };
}

// ───────────── allocations

function presentAllocation(allocation: AllocationWithResource) {
  return {
    id: allocation.id,
    resourceId: allocation.resourceId,
    resourceName: allocation.resourceName,
    unit: allocation.unit,
    eventId: allocation.eventId,
    quantity: allocation.quantity,
    startsAt: allocation.startsAt.toISOString(),
    endsAt: allocation.endsAt.toISOString(),
    notes: allocation.notes,
    createdById: allocation.createdById,
  };
}

/**
 * Holds units of a resource for an event over a span (the event's by default). The resource's row
 * is locked while the units already held at the busiest moment of the span are counted, so two
 * events asking at once are decided one after the other and never both get the last units.
 */
export async function allocate(deps: Deps, eventId: string, input: AllocationInput, actor: Actor) {
  return deps.db.transaction(async (tx) => {
    const event = await visibleEvent(tx, actor, eventId);
    agendaPolicy.authorize(actor, 'edit', event);
    if (event.status === 'cancelled') throw new ConflictError('This event was cancelled.', 'event_cancelled');
    const startsAt = input.startsAt ?? event.startsAt;
    const endsAt = input.endsAt ?? event.endsAt;
    if (endsAt <= startsAt) throw invalidField(input.endsAt ? 'body.endsAt' : 'body.startsAt', 'The allocation would end before it starts.');
    const resource = await logistics.findResource(tx, input.resourceId, true);
    if (!resource) throw invalidField('body.resourceId', 'No resource has this id.');
    if (!resource.active) throw new ConflictError(`“${resource.name}” is retired from the inventory.`, 'resource_inactive');
    const held = await logistics.peakAllocated(tx, resource.id, startsAt, endsAt);
    const available = resource.quantity - held;
    if (input.quantity > available) {
      throw new ConflictError(
        `Only ${Math.max(0, available)} of ${resource.quantity} “${resource.name}” are free at the busiest moment of that span (${held} held by other events).`,
        'over_allocated',
      );
    }
    const id = newId();
    await logistics.insertAllocation(tx, {
      id,
      resourceId: resource.id,
      eventId,
      quantity: input.quantity,
      startsAt,
      endsAt,
      notes: input.notes ?? null,
      createdById: actor.id,
      createdAt: new Date(),
    });
    return presentAllocation((await logistics.allocationsOf(tx, { id }))[0]!);
  });
}

export async function eventAllocations(deps: Deps, eventId: string, actor: Actor) {
  await visibleEvent(deps.db, actor, eventId);
  return { data: (await logistics.allocationsOf(deps.db, { eventId })).map(presentAllocation) };
}

export async function release(deps: Deps, eventId: string, allocationId: string, actor: Actor): Promise<void> {
  const event = await visibleEvent(deps.db, actor, eventId);
  agendaPolicy.authorize(actor, 'edit', event);
  if (!(await logistics.deleteAllocation(deps.db, eventId, allocationId))) throw new NotFoundError('This event has no allocation with this id.');
}

// ───────────── tasks

function presentTask(task: TaskRecord) {
  return {
    id: task.id,
    eventId: task.eventId,
    title: task.title,
    notes: task.notes,
    assigneeId: task.assigneeId,
    dueAt: task.dueAt?.toISOString() ?? null,
    done: task.doneAt !== null,
    doneAt: task.doneAt?.toISOString() ?? null,
    createdAt: task.createdAt.toISOString(),
  };
}

async function assertAssignee(q: Queries, assigneeId: string | null | undefined): Promise<void> {
  if (!assigneeId) return;
  const user = await findUser(q, assigneeId);
  if (!user || !user.active) throw invalidField('body.assigneeId', 'No active user has this id.');
}

export async function createTask(deps: Deps, eventId: string, input: CreateTaskInput, actor: Actor) {
  const event = await visibleEvent(deps.db, actor, eventId);
  agendaPolicy.authorize(actor, 'edit', event);
  if (event.status === 'cancelled') throw new ConflictError('This event was cancelled.', 'event_cancelled');
  await assertAssignee(deps.db, input.assigneeId);
  const now = new Date();
  const task: TaskRecord = {
    id: newId(),
    eventId,
    title: input.title,
    notes: input.notes ?? null,
    assigneeId: input.assigneeId ?? null,
    dueAt: input.dueAt ?? null,
    doneAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await logistics.insertTask(deps.db, task);
  return presentTask(task);
}

export async function listTasks(deps: Deps, eventId: string, actor: Actor) {
  await visibleEvent(deps.db, actor, eventId);
  return { data: (await logistics.tasksOf(deps.db, eventId)).map(presentTask) };
}

/** The organiser and managers change anything; the person a task is assigned to may tick it done (or not). */
export async function changeTask(deps: Deps, eventId: string, taskId: string, input: UpdateTaskInput, actor: Actor) {
  const event = await visibleEvent(deps.db, actor, eventId);
  const task = await logistics.findTask(deps.db, eventId, taskId);
  if (!task) throw new NotFoundError('This event has no task with this id.');
  const editor = agendaPolicy.allows(actor, 'edit', event);
  const onlyDone = Object.entries(input).every(([field, value]) => field === 'done' || value === undefined);
  if (!editor && !(task.assigneeId === actor.id && onlyDone)) throw new ForbiddenError('Only the organiser or a manager changes this task; its assignee may mark it done.');
  await assertAssignee(deps.db, input.assigneeId);
  const now = new Date();
  const next: TaskRecord = {
    ...task,
    title: input.title ?? task.title,
    notes: input.notes === undefined ? task.notes : input.notes,
    assigneeId: input.assigneeId === undefined ? task.assigneeId : input.assigneeId,
    dueAt: input.dueAt === undefined ? task.dueAt : input.dueAt,
    doneAt: input.done === undefined ? task.doneAt : input.done ? (task.doneAt ?? now) : null,
    updatedAt: now,
  };
  await logistics.updateTask(deps.db, next);
  return presentTask(next);
}

export async function removeTask(deps: Deps, eventId: string, taskId: string, actor: Actor): Promise<void> {
  const event = await visibleEvent(deps.db, actor, eventId);
  agendaPolicy.authorize(actor, 'edit', event);
  if (!(await logistics.deleteTask(deps.db, eventId, taskId))) throw new NotFoundError('This event has no task with this id.');
}
