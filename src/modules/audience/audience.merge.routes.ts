import { z } from 'zod';
import { ApiRouter } from '../../kernel/http/router';
import { pageSchema } from '../../kernel/pagination';
import { dismissalBody, dismissalView, dismissDuplicate, duplicatePairView, listDuplicates, listDuplicatesQuery } from './audience.duplicates';
import { CONTACT_IMPORT_MAX_ROWS, contactImportAnswer, IMPORT_COLUMNS, importContacts, importQuery, PREVIEW_ROWS } from './audience.import';
import { listMerges, mergeContacts, UNDO_WINDOW_MS, undoMerge } from './audience.merge';
import { listMergesQuery, mergeBody, mergeIdParams, mergeView } from './audience.merge.schemas';
import { audiencePolicy } from './audience.policy';
import { contactIdParams } from './audience.schemas';

const columns = Object.values(IMPORT_COLUMNS)
  .map((names) => names.map((name) => `\`${name}\``).join(' / '))
  .join(', ');
const UNDO_HOURS = UNDO_WINDOW_MS / 3_600_000;

/** Supporters' files, the duplicate finder and merges of two records of one person (docs/api.md, "People: import, duplicates and merge"). */
export const mergeRouter = new ApiRouter('audience', 'People the campaign may reach: their consent, exports and erasure (habeas data)')
  .post(
    '/api/audience/contacts/import',
    {
      summary: `Import supporters from CSV (up to ${CONTACT_IMPORT_MAX_ROWS.toLocaleString('en')} rows, streamed), or check a file with dryRun`,
      description:
        `Send \`text/csv\` with a header row naming \`name\` and \`phone\` or \`email\`, and any of the other columns, in English or Spanish: ${columns}. ` +
        'Headers match regardless of case, accents, spaces and underscores. Lists (interests, tags) are separated by `;`, `,` or `|`; ' +
        'consent columns take si/no (sí, yes, true, 1, x / no, false, 0, empty). ' +
        'A row updates the held contact with its phone (E.164), else with its email, instead of creating another: fields it fills replace, empty cells keep, interests and tags are added. ' +
        'A row whose cédula belongs to another contact, or that names the same person as an earlier row, is refused. Every problem of a row is listed on its line. ' +
        'A consent column saying yes needs the file’s proof: `consentText` (the exact text people agreed to) and `consentCollection` (where and how it was collected); ' +
        'each person whose consent opens a channel gets a consent record (source `import`, its ref the import). An import never re-opens a channel the person withdrew from (a warning). ' +
        `With \`dryRun=true\` nothing is written and \`preview\` shows the first ${PREVIEW_ROWS} valid rows as they would be.`,
      access: audiencePolicy.roles('importContacts'),
      query: importQuery,
      body: z.string().describe('CSV text'),
      bodyTypes: ['csv'],
      handlerParsesBody: true,
      response: contactImportAnswer,
      errors: {
        400:
          'CSV that cannot be parsed (`malformed_csv`), a header with an unknown (`unknown_columns`) or repeated (`repeated_columns`) column or without name, phone or email (`missing_columns`), ' +
          'or a consent column saying yes without consentText (`consent_proof_missing`); nothing imported',
        409: 'A person in the file was created by someone else while it was read (`contact_created_meanwhile`); nothing imported',
        413: `More than ${CONTACT_IMPORT_MAX_ROWS.toLocaleString('en')} data rows (\`too_many_rows\`); nothing imported`,
      },
    },
    async ({ ctx, input, actor }) => importContacts(ctx.deps, actor, ctx.req, input.query),
  )
  .get(
    '/api/audience/duplicates',
    {
      summary: 'Pairs of contacts that may be one person',
      description:
        'Found by a shared identifier (the same cédula, the same email on two contacts, the same phone digits whatever their format) or the same name ' +
        '(without case, accents or punctuation) in the same territory; each pair lists every reason that holds, `similar_name` when the names are alike ' +
        '(pg_trgm similarity ≥ 0.6), and a score, best first. Kept as contacts change, and up to date with every write committed before the call. ' +
        'Phones and emails are masked. Erased and merged-away contacts never appear, nor pairs marked as different people.',
      access: audiencePolicy.roles('findDuplicates'),
      query: listDuplicatesQuery,
      response: pageSchema(duplicatePairView),
    },
    async ({ ctx, input }) => listDuplicates(ctx.deps.db, input.query),
  )
  .post(
    '/api/audience/duplicates/dismissals',
    {
      summary: 'Mark two contacts as different people',
      description: 'The pair stops appearing among the duplicates. Marking it again changes nothing.',
      access: audiencePolicy.roles('dismissDuplicate'),
      body: dismissalBody,
      status: 201,
      response: dismissalView,
      errors: { 404: 'A contact is unknown, erased or merged into another' },
    },
    async ({ ctx, input, actor }) => dismissDuplicate(ctx.deps.db, actor, input.body.contactIds),
  )
  .post(
    '/api/audience/contacts/:id/merge',
    {
      summary: 'Merge another record of the same person into this contact',
      description:
        'In one transaction, both contacts locked: every consent record of `from` moves to this contact unchanged, its origins join, and every module moves its rows here ' +
        '(QR leads of one campaign combine; two WhatsApp threads become one; agenda answers and check-ins for one event keep one; GOTV voters and volunteers are refused ' +
        'when both records have one). Empty fields are filled from `from`, interests and tags joined; `from` is left as a tombstone that is no longer anyone. ' +
        `Audited (counts only) and undoable for ${UNDO_HOURS} hours.`,
      access: audiencePolicy.roles('mergeContacts'),
      params: contactIdParams,
      body: mergeBody,
      status: 201,
      response: mergeView,
      errors: {
        404: 'Either contact is unknown or erased',
        409: 'A contact was merged away already (`contact_merged`), or a module cannot hold both records as one (`merge_refused`, naming the `module`)',
      },
    },
    async ({ ctx, input, actor }) => mergeContacts(ctx.deps, actor, input.params.id.toLowerCase(), input.body.from.toLowerCase()),
  )
  .get(
    '/api/audience/merges',
    {
      summary: 'Recent merges',
      description: 'Newest first; filter by `contactId` (as survivor or merged-away record). `status` says whether each can still be undone.',
      access: audiencePolicy.roles('readMerges'),
      query: listMergesQuery,
      response: pageSchema(mergeView),
    },
    async ({ ctx, input }) => listMerges(ctx.deps.db, input.query),
  )
  .post(
    '/api/audience/merges/:mergeId/undo',
    {
      summary: `Split a merge again (within ${UNDO_HOURS} hours)`,
      description:
        'Every row that moved goes back to the merged-away record, combined rows are split as they were, its consent records and fields return, and the survivor gets its own values back ' +
        '(where nothing changed them since). Audited.',
      access: audiencePolicy.roles('undoMerge'),
      params: mergeIdParams,
      response: mergeView,
      errors: {
        404: 'No such merge',
        409:
          'Undone already (`merge_undone`), past the undo window (`undo_window_passed`), the person erased since (`merge_erased`), ' +
          'the survivor merged into another since (`survivor_merged`), or the record’s phone or email taken by a new contact (`identity_taken`)',
      },
    },
    async ({ ctx, input, actor }) => undoMerge(ctx.deps, actor, input.params.mergeId),
  );
