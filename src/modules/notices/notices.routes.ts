import { ApiRouter } from '../../kernel/http/router';
import { noticesPolicy } from './notices.policy';
import { listNoticesQuery, noticePageView } from './notices.schemas';
import { listNotices } from './notices.service';

export const noticesRouter = new ApiRouter('notices', 'Messages to one person (reminders, receipts, answers) and how each went out').get(
  '/api/notices',
  {
    summary: 'Messages sent to one person on behalf of a module',
    description:
      'Newest first: event reminders, PQRS acknowledgements and answers… each with the channel it went out on (or why it could not), and its delivery as the channel ' +
      'reports it now (queued, sent, delivered, read, failed…). Filters: purpose, contactId, channel, status.',
    access: noticesPolicy.roles('read'),
    query: listNoticesQuery,
    response: noticePageView,
  },
  async ({ ctx, input }) => listNotices(ctx.deps.db, input.query),
);
