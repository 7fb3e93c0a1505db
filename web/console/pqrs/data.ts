import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import type { PqrsRequestEvent } from '../../../src/modules/pqrs/pqrs.events';
import type { assigneesView, historyView, requestView, summaryView } from '../../../src/modules/pqrs/pqrs.schemas';
import { api, queryClient } from '../app/api';
import { useLiveEvent } from '../app/live';
import { invalidateServerLists, patchServerLists } from '../app/ServerTable';

export type PqrsRequest = z.output<typeof requestView>;
export type PqrsSummary = z.output<typeof summaryView>;
export type PqrsHistory = z.output<typeof historyView>['data'];
export type PqrsNotice = NonNullable<PqrsRequest['personal']>['answerNotice'];
export type Assignee = z.output<typeof assigneesView>['data'][number];

export const LIST_PATH = '/api/pqrs';
/** The queue's console address (/pqrs itself is the citizens' public form, served by the API). */
export const QUEUE_PATH = '/pqrs/cola';
export const requestKey = (id: string) => ['pqrs', 'request', id] as const;
export const historyKey = (id: string) => ['pqrs', 'history', id] as const;
export const SUMMARY_KEY = ['pqrs', 'summary'] as const;

export const useRequest = (id: string) => useQuery({ queryKey: requestKey(id), queryFn: () => api.get<PqrsRequest>(`${LIST_PATH}/${id}`) });

export const useHistory = (id: string) => useQuery({ queryKey: historyKey(id), queryFn: () => api.get<{ data: PqrsHistory }>(`${LIST_PATH}/${id}/history`) });

/** Whom requests may be assigned to, by id (a short list that rarely changes). */
export function useAssignees() {
  const query = useQuery({ queryKey: ['pqrs', 'assignees'], queryFn: () => api.get<{ data: Assignee[] }>(`${LIST_PATH}/assignees`), staleTime: 300_000 });
  const byId = new Map((query.data?.data ?? []).map((member) => [member.id, member]));
  return { list: query.data?.data ?? [], byId, isPending: query.isPending };
}

/** A request as the API now answers it: its cached copies (the page, the queue's rows) show it at once. */
export function storeRequest(request: PqrsRequest): void {
  queryClient.setQueryData(requestKey(request.id), request);
  patchServerLists<PqrsRequest>(LIST_PATH, (row) => (row.id === request.id ? request : row));
  void queryClient.invalidateQueries({ queryKey: historyKey(request.id) });
  void queryClient.invalidateQueries({ queryKey: SUMMARY_KEY });
}

/** What an event says of a row: its status, deadline, countdown and colour (nothing personal travels). */
function withEvent(row: PqrsRequest, event: PqrsRequestEvent): PqrsRequest {
  return {
    ...row,
    type: event.type,
    status: event.status,
    priority: event.priority,
    assigneeId: event.assigneeId,
    dueDate: event.dueDate,
    dueAt: event.dueAt,
    businessDaysLeft: event.businessDaysLeft,
    dueState: event.dueState,
    overdue: event.dueState === 'overdue',
    dueSoon: event.dueState === 'due_soon',
  };
}

let refresh: ReturnType<typeof setTimeout> | undefined;
const touched = new Set<string>();

/**
 * The desk follows the `pqrs` room: an event patches the row and the request it names at once,
 * and within half a second the queue, the header's counts and those requests are read again (a
 * filing has to find its place in the order; a burst of events costs one refetch).
 */
export function usePqrsLive(): void {
  useLiveEvent('pqrs:request', (event) => {
    patchServerLists<PqrsRequest>(LIST_PATH, (row) => (row.id === event.id ? withEvent(row, event) : row));
    queryClient.setQueryData<PqrsRequest>(requestKey(event.id), (current) => current && withEvent(current, event));
    touched.add(event.id);
    if (refresh) return;
    refresh = setTimeout(() => {
      refresh = undefined;
      void invalidateServerLists(LIST_PATH);
      void queryClient.invalidateQueries({ queryKey: SUMMARY_KEY });
      for (const id of touched) {
        void queryClient.invalidateQueries({ queryKey: requestKey(id) });
        void queryClient.invalidateQueries({ queryKey: historyKey(id) });
      }
      touched.clear();
    }, 400);
  });
}
