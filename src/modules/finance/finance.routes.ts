import { z } from 'zod';
import { ApiRouter } from '../../kernel/http/router';
import { financePolicy } from './finance.policy';
import { RECEIPT_MAX_BYTES, RECEIPT_TYPES, readBody, receiptExtension } from './finance.receipts';
import { XLSX_TYPE, financeReport, reportCsv, reportFileName, reportXlsx } from './finance.report';
import {
  codeParams,
  codeView,
  createCodeBody,
  createEntryBody,
  entryPageView,
  entryView,
  historyView,
  idParams,
  listCodesQuery,
  listEntriesQuery,
  reportQuery,
  reportView,
  reverseEntryBody,
  settingsBody,
  settingsView,
  summaryView,
  updateCodeBody,
  updateEntryBody,
  eventBudgetParams,
  eventBudgetView,
} from './finance.schemas';
import * as entries from './finance.service';
import * as settings from './finance.settings';

const base = '/api/finance';

const overrideErrors = {
  403: 'The role may not do this, or a treasurer sent `override` (only managers override)',
  409: 'The expense would pass the spending cap (`cap_exceeded`) or the donation the donor limit (`donor_limit_exceeded`); the entry is dated in the closed period (`period_closed`)',
};

export const financeRouter = new ApiRouter('finance', 'The campaign ledger, spending cap, donor limits, receipts and the Cuentas Claras report')
  .post(
    `${base}/entries`,
    {
      summary: 'Record an income or expense',
      description:
        'Whole pesos, a local day not after today and outside the closed period, a code of the catalogue of the same kind. Income under a ' +
        'donation code names `donorType` and the donor’s `counterparty.idNumber`. An expense that would take spending above the cap, or a ' +
        'person’s or company’s donation that would take them above the donor limit, is a 409 unless a manager sends `override: { reason }`.',
      access: financePolicy.roles('record'),
      body: createEntryBody,
      status: 201,
      response: entryView,
      errors: overrideErrors,
    },
    async ({ ctx, input, actor }) => entries.createEntry(ctx.deps, input.body, actor),
  )
  .get(
    `${base}/entries`,
    {
      summary: 'List ledger entries',
      description:
        'Newest day first. Filters: kind, code, from/to (days), idNumber (counterparty), eventId (agenda event), q (name or description). `totals` are of every matching entry, not just the page.',
      access: financePolicy.roles('read'),
      query: listEntriesQuery,
      response: entryPageView,
    },
    async ({ ctx, input }) => entries.listEntries(ctx.deps, input.query),
  )
  .get(
    `${base}/events/:eventId/budget`,
    {
      summary: "An agenda event's budget against its movements",
      description: 'The planned budget set on the event, what was spent and received under it (entries with its `eventId`, reversals netted) and what is left.',
      access: financePolicy.roles('read'),
      params: eventBudgetParams,
      response: eventBudgetView,
      errors: { 404: 'No such event' },
    },
    async ({ ctx, input }) => entries.eventBudgetReport(ctx.deps.db, input.params.eventId),
  )
  .get(`${base}/entries/:id`, { summary: 'One ledger entry', access: financePolicy.roles('read'), params: idParams, response: entryView }, async ({ ctx, input }) =>
    entries.getEntry(ctx.deps.db, input.params.id),
  )
  .patch(
    `${base}/entries/:id`,
    {
      summary: 'Correct an entry of an open period',
      description:
        'Any of date, amount, code (same kind), counterparty, description, notes, donorType. Not for entries of the closed period, reversals or reversed ' +
        'entries (409): those are corrected with a reversal. The cap and the donor limit apply to an increase, with the same override.',
      access: financePolicy.roles('record'),
      params: idParams,
      body: updateEntryBody,
      response: entryView,
      errors: { ...overrideErrors, 409: `${overrideErrors[409]}; a reversal (\`reversal_entry\`) or a reversed entry (\`already_reversed\`)` },
    },
    async ({ ctx, input, actor }) => entries.changeEntry(ctx.deps, input.params.id, input.body, actor),
  )
  .post(
    `${base}/entries/:id/reverse`,
    {
      summary: 'Reverse an entry',
      description:
        'A new entry dated today with the opposite amount, the same code and counterparty, linked both ways (`reversesId`, `reversedById`). Closed periods are corrected this way.',
      access: financePolicy.roles('record'),
      params: idParams,
      body: reverseEntryBody,
      status: 201,
      response: entryView,
      errors: { 409: 'Already reversed (`already_reversed`), or itself a reversal (`reversal_entry`)' },
    },
    async ({ ctx, input, actor }) => entries.reverseEntry(ctx.deps, input.params.id, input.body, actor),
  )
  .get(
    `${base}/entries/:id/history`,
    {
      summary: "An entry's audit trail",
      description: 'Oldest first: creation, each change (before/after of the fields that changed), reversal and receipt upload, with who and when.',
      access: financePolicy.roles('read'),
      params: idParams,
      response: historyView,
    },
    async ({ ctx, input }) => entries.entryHistory(ctx.deps.db, input.params.id),
  )
  .put(
    `${base}/entries/:id/receipt`,
    {
      summary: 'Upload the receipt of an entry',
      description:
        `The raw file as the body, \`Content-Type\` ${RECEIPT_TYPES.join(', ')}; its first bytes must match (415 otherwise). At most ` +
        `${RECEIPT_MAX_BYTES / 1024 / 1024} MB (413). Replaces the previous one; an entry of the closed period may get a first receipt but not a new one.`,
      access: financePolicy.roles('record'),
      params: idParams,
      body: z.string().describe('The receipt file'),
      bodyTypes: ['jpeg', 'png', 'pdf'],
      handlerParsesBody: true,
      response: entryView,
      errors: { 409: 'Closed period and already has a receipt (`period_closed`)', 415: 'Not a JPEG, PNG or PDF, or not what Content-Type says (`receipt_type_mismatch`)' },
    },
    async ({ ctx, input, actor }) => {
      const declaredLength = ctx.request.length;
      const bytes = await readBody(ctx.req, Number.isFinite(declaredLength) ? declaredLength : undefined);
      return entries.attachReceipt(ctx.deps, input.params.id, ctx.request.type, bytes, actor);
    },
  )
  .get(
    `${base}/entries/:id/receipt`,
    {
      summary: 'Download the receipt of an entry',
      access: financePolicy.roles('read'),
      params: idParams,
      produces: Object.fromEntries(RECEIPT_TYPES.map((type) => [type, 'The receipt as uploaded'])),
    },
    async ({ ctx, input }) => {
      const receipt = await entries.receiptOf(ctx.deps, input.params.id);
      ctx.type = receipt.type;
      ctx.length = receipt.size;
      ctx.set('Content-Disposition', `attachment; filename="recibo-${input.params.id}.${receiptExtension(receipt.type)}"`);
      ctx.set('ETag', `"${receipt.sha256}"`);
      ctx.body = receipt.stream;
      return undefined;
    },
  )
  .get(
    `${base}/summary`,
    {
      summary: 'Income, expenses, the cap and the projection',
      description:
        'Balance; expenses against the spending cap (percentage, what remains); days to the election; projected spend (mean daily expenses of the ' +
        'last 30 days × days to the election + expenses so far); warnings at 80 % and 95 % of the cap; totals by code. Viewers may read it.',
      access: financePolicy.roles('readSummary'),
      response: summaryView,
    },
    async ({ ctx }) => settings.financeSummary(ctx.deps),
  )
  .get(`${base}/settings`, { summary: 'Finance settings', access: financePolicy.roles('read'), response: settingsView }, async ({ ctx }) => settings.getSettings(ctx.deps.db))
  .put(
    `${base}/settings`,
    {
      summary: 'Set the spending cap, election day, donor limit and closed period',
      description: '`closedThrough` closes every day up to it for good: it only moves forward (409 otherwise) and only to a day already over (400).',
      access: financePolicy.roles('configure'),
      body: settingsBody,
      response: settingsView,
      errors: { 409: 'closedThrough before the current one (`period_closed`)' },
    },
    async ({ ctx, input, actor }) => settings.replaceSettings(ctx.deps, input.body, actor),
  )
  .get(
    `${base}/codes`,
    { summary: 'The income and expense codes', access: financePolicy.roles('read'), query: listCodesQuery, response: z.object({ data: z.array(codeView) }) },
    async ({ ctx, input }) => settings.catalogue(ctx.deps.db, input.query),
  )
  .post(
    `${base}/codes`,
    {
      summary: 'Add a code to the catalogue',
      description: 'I-nnn for income, G-nnn for expenses (a sub-code such as G-203.1 too).',
      access: financePolicy.roles('record'),
      body: createCodeBody,
      status: 201,
      response: codeView,
      errors: { 409: 'The code exists (`code_taken`)' },
    },
    async ({ ctx, input, actor }) => settings.createCode(ctx.deps, input.body, actor),
  )
  .patch(
    `${base}/codes/:code`,
    { summary: 'Rename, describe, (de)activate a code', access: financePolicy.roles('record'), params: codeParams, body: updateCodeBody, response: codeView },
    async ({ ctx, input, actor }) => settings.changeCode(ctx.deps, input.params.code, input.body, actor),
  )
  .delete(
    `${base}/codes/:code`,
    {
      summary: 'Delete an unused code',
      access: financePolicy.roles('record'),
      params: codeParams,
      status: 204,
      errors: { 409: 'Entries use it (`code_in_use`): deactivate it instead' },
    },
    async ({ ctx, input, actor }) => {
      await settings.removeCode(ctx.deps, input.params.code, actor);
      return undefined;
    },
  )
  .get(
    `${base}/report`,
    {
      summary: 'The campaign report by code, for Cuentas Claras',
      description:
        'Each code’s entries and net total in the day range, then total income, total expenses and balance. `format=csv` or `xlsx` downloads it (the workbook adds the entries).',
      access: financePolicy.roles('read'),
      query: reportQuery,
      response: reportView,
      produces: { 'text/csv': 'format=csv', [XLSX_TYPE]: 'format=xlsx: sheets Resumen and Detalle' },
    },
    async ({ ctx, input }) => {
      const report = await financeReport(ctx.deps.db, input.query);
      if (input.query.format === 'json') return report;
      const extension = input.query.format;
      ctx.set('Content-Disposition', `attachment; filename="${reportFileName(report, extension)}"`);
      if (extension === 'csv') {
        ctx.type = 'text/csv; charset=utf-8';
        ctx.body = reportCsv(report);
      } else {
        ctx.type = XLSX_TYPE;
        ctx.body = await reportXlsx(ctx.deps.db, report);
      }
      return undefined;
    },
  );
