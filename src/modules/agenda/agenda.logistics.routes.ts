import { ApiRouter } from '../../kernel/http/router';
import * as logistics from './agenda.logistics';
import { agendaPolicy } from './agenda.policy';
import {
  allocationBody,
  allocationListView,
  allocationParams,
  allocationView,
  createResourceBody,
  createTaskBody,
  idParams,
  listResourcesQuery,
  resourceListView,
  resourceParams,
  resourceView,
  taskListView,
  taskParams,
  taskView,
  updateResourceBody,
  updateTaskBody,
} from './agenda.schemas';

const base = '/api/agenda';

/** The inventory, what events hold of it, and each event's to-do list. */
export const logisticsRouter = new ApiRouter('agenda', 'Events with RSVP, waitlist, shifts and check-in; reminders, logistics and the iCalendar feed')
  .post(
    `${base}/resources`,
    {
      summary: 'Add a resource to the inventory',
      description: 'Sound equipment, vehicles, t-shirts, posters: a name (unique), how many the campaign has, and a unit.',
      access: agendaPolicy.roles('manageInventory'),
      body: createResourceBody,
      status: 201,
      response: resourceView,
      errors: { 409: 'A resource has this name (`resource_exists`)' },
    },
    async ({ ctx, input }) => logistics.createResource(ctx.deps, input.body),
  )
  .get(
    `${base}/resources`,
    {
      summary: 'The inventory, with what is held in a window',
      description: '`allocated` is the most units events hold at one moment of [from, to) (now to 30 days ahead by default); cancelled events hold nothing.',
      access: agendaPolicy.roles('readInventory'),
      query: listResourcesQuery,
      response: resourceListView,
    },
    async ({ ctx, input }) => logistics.listResources(ctx.deps, input.query),
  )
  .patch(
    `${base}/resources/:resourceId`,
    {
      summary: 'Change a resource',
      access: agendaPolicy.roles('manageInventory'),
      params: resourceParams,
      body: updateResourceBody,
      response: resourceView,
      errors: { 409: 'Lower than what upcoming events hold (`over_allocated`), or the name is taken (`resource_exists`)' },
    },
    async ({ ctx, input }) => logistics.changeResource(ctx.deps, input.params.resourceId, input.body),
  )
  .get(
    `${base}/resources/:resourceId/allocations`,
    { summary: 'Every allocation of a resource', access: agendaPolicy.roles('readInventory'), params: resourceParams, response: allocationListView },
    async ({ ctx, input }) => logistics.resourceAllocations(ctx.deps, input.params.resourceId),
  )
  .post(
    `${base}/events/:id/allocations`,
    {
      summary: 'Hold units of a resource for an event',
      description:
        'Over the event’s span unless `startsAt`/`endsAt` say otherwise (set-up, transport). Refused with 409 when, at the busiest moment of the span, ' +
        'other events already hold so many that the rest would not be there: nothing is double-booked.',
      access: agendaPolicy.roles('edit'),
      params: idParams,
      body: allocationBody,
      status: 201,
      response: allocationView,
      errors: { 409: 'Not enough free (`over_allocated`); retired resource (`resource_inactive`); cancelled event (`event_cancelled`)' },
    },
    async ({ ctx, input, actor }) => logistics.allocate(ctx.deps, input.params.id, input.body, actor),
  )
  .get(
    `${base}/events/:id/allocations`,
    { summary: 'What an event holds', access: agendaPolicy.roles('read'), params: idParams, response: allocationListView },
    async ({ ctx, input, actor }) => logistics.eventAllocations(ctx.deps, input.params.id, actor),
  )
  .delete(
    `${base}/events/:id/allocations/:allocationId`,
    { summary: 'Give back what an event held', access: agendaPolicy.roles('edit'), params: allocationParams, status: 204 },
    async ({ ctx, input, actor }) => {
      await logistics.release(ctx.deps, input.params.id, input.params.allocationId, actor);
      return undefined;
    },
  )
  .post(
    `${base}/events/:id/tasks`,
    {
      summary: 'Add a task to an event',
      access: agendaPolicy.roles('edit'),
      params: idParams,
      body: createTaskBody,
      status: 201,
      response: taskView,
      errors: { 409: 'Cancelled event' },
    },
    async ({ ctx, input, actor }) => logistics.createTask(ctx.deps, input.params.id, input.body, actor),
  )
  .get(
    `${base}/events/:id/tasks`,
    { summary: 'An event’s tasks, open ones first by due time', access: agendaPolicy.roles('read'), params: idParams, response: taskListView },
    async ({ ctx, input, actor }) => logistics.listTasks(ctx.deps, input.params.id, actor),
  )
  .patch(
    `${base}/events/:id/tasks/:taskId`,
    {
      summary: 'Change a task or mark it done',
      description: 'The organiser or a manager changes anything; the assignee may send `done` alone.',
      access: agendaPolicy.roles('read'),
      params: taskParams,
      body: updateTaskBody,
      response: taskView,
    },
    async ({ ctx, input, actor }) => logistics.changeTask(ctx.deps, input.params.id, input.params.taskId, input.body, actor),
  )
  .delete(`${base}/events/:id/tasks/:taskId`, { summary: 'Remove a task', access: agendaPolicy.roles('edit'), params: taskParams, status: 204 }, async ({ ctx, input, actor }) => {
    await logistics.removeTask(ctx.deps, input.params.id, input.params.taskId, actor);
    return undefined;
  });
