import { ApiRouter } from '../../kernel/http/router';
import { pageSchema } from '../../kernel/pagination';
import { audiencePolicy } from './audience.policy';
import { auditEntryView, contactIdParams, erasureView, listAuditQuery, personExportView, withdrawalBody, withdrawalView } from './audience.schemas';
import { erasePerson, exportPerson, listAudit, recordStaffWithdrawal } from './audience.service';

const NOT_FOUND = 'No such contact, or their data was already erased';

/** A person's rights over their data (Ley 1581 de 2012, art. 8), answered by campaign staff. */
export const audienceRouter = new ApiRouter('audience', 'People the campaign may reach: their consent, exports and erasure (habeas data)')
  .get(
    '/api/audience/contacts/:id/export',
    {
      summary: 'Everything held about one person, as a file for them',
      description:
        'The contact, where they came from, every consent and withdrawal with the exact text agreed to, and each module’s section ' +
        '(QR leads, WhatsApp conversation and messages, email send lists, events and bounces, GOTV voter records, login accounts, ' +
        'PQRS requests, donations and other ledger entries under their cédula…), found by the contact and by their cédula, phone and email. ' +
        'Answered as an attachment; the export is audited.',
      access: audiencePolicy.roles('exportPerson'),
      params: contactIdParams,
      response: personExportView,
      errors: { 404: NOT_FOUND },
    },
    async ({ ctx, input, actor }) => {
      const data = await exportPerson(ctx.deps, actor, input.params.id);
      ctx.set('Content-Disposition', `attachment; filename="personal-data-${input.params.id}.json"`);
      return data;
    },
  )
  .delete(
    '/api/audience/contacts/:id',
    {
      summary: "Erase one person's data in every module",
      description:
        'In one transaction: no table keeps their name, phone, email or cédula, whether a row points at the contact or only carries ' +
        'one of their identifiers (a voter imported by cédula, a login under their email); campaign figures stay as they were ' +
        '(rows are anonymised, not removed); consent records stay as proof without what identified the person; ' +
        'messages not yet sent to them are skipped; their login accounts stop working at once; their identifiers are kept only as ' +
        'keyed hashes, so a list imported later cannot add them again. What a law obliges the campaign to keep (its books) stays ' +
        'and is listed in `retained` with the law. Audited, with counts by module.',
      access: audiencePolicy.roles('erasePerson'),
      params: contactIdParams,
      response: erasureView,
      errors: { 404: NOT_FOUND, 409: 'The person’s login is the last active admin (`last_admin`): make another admin first' },
    },
    async ({ ctx, input, actor }) => erasePerson(ctx.deps, actor, input.params.id),
  )
  .post(
    '/api/audience/contacts/:id/withdrawals',
    {
      summary: 'Record a withdrawal of consent the person asked staff for',
      description:
        'Opts the person out of the channel with a `withdrawn` consent record (source `staff`, the acting user, the note as evidence). ' +
        'Idempotent: when they were already opted out, `changed` is false and nothing is recorded again.',
      access: audiencePolicy.roles('recordWithdrawal'),
      params: contactIdParams,
      body: withdrawalBody,
      response: withdrawalView,
      errors: { 404: NOT_FOUND },
    },
    async ({ ctx, input, actor }) => recordStaffWithdrawal(ctx.deps.db, actor, input.params.id, input.body.channel, input.body.note),
  )
  .get(
    '/api/audience/audit',
    {
      summary: "Audit of exports, erasures and withdrawals of people's data",
      description: 'Who acted, when, on which contact id, with counts by module; never the data itself. Newest first; filter by `contactId` or `action`.',
      access: audiencePolicy.roles('readAudit'),
      query: listAuditQuery,
      response: pageSchema(auditEntryView),
    },
    async ({ ctx, input }) => listAudit(ctx.deps.db, input.query),
  );
