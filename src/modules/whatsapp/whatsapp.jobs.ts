import { z } from 'zod';
import type { AppDeps } from '../../kernel/context';
import { defineJob } from '../../kernel/jobs';
import { whatsapp } from './whatsapp.context';

const dispatchData = z.object({ reason: z.enum(['campaign', 'reply', 'notice', 'tick']) });
type DispatchData = z.infer<typeof dispatchData>;

/**
 * "There are WhatsApp messages to send." Carries no list: the rows in PostgreSQL are the list,
 * so a job lost or run twice costs nothing; the sender drains whatever is due.
 */
export const dispatchJob = defineJob<DispatchData>({
  name: 'whatsapp.dispatch',
  schema: dispatchData,
  attempts: 3,
  backoffMs: 1000,
  concurrency: 1,
  handler: async (_data, { deps }) => {
    await whatsapp(deps).sender.drain();
  },
});

export function requestDispatch(deps: AppDeps, reason: DispatchData['reason']): Promise<void> {
  return deps.jobs.enqueue<DispatchData>(dispatchJob, { reason });
}
