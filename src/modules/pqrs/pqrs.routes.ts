import type { Context } from 'koa';
import { z } from 'zod';
import type { Actor } from '../../kernel/auth/roles';
import { AppError, ForbiddenError, ValidationError, type FieldError } from '../../kernel/errors';
import { readBody } from '../../kernel/file-store';
import { ApiRouter, parsePart } from '../../kernel/http/router';
import { localDateOf } from './pqrs.clock';
import { PQRS_CHANNELS } from './pqrs.entities';
import { checkFormFiles, MultipartError, parseMultipart, type FormFile } from './pqrs.multipart';
import { renderMessage, renderPqrsForm, renderReceived, type PqrsFormView } from './pqrs.page';
import { fileBody } from './pqrs.filing.schemas';
import { pqrsPolicy } from './pqrs.policy';
import { readSettings, findRequest } from './pqrs.repository';
import {
  answerBody,
  assigneesView,
  attachmentCreatedView,
  attachmentParams,
  extendBody,
  filedView,
  fromWhatsAppBody,
  historyView,
  idParams,
  listQuery,
  requestPageView,
  requestView,
  settingsBody,
  settingsView,
  summaryQuery,
  summaryView,
  updateBody,
} from './pqrs.schemas';
import * as desk from './pqrs.service';

const base = '/api/pqrs';
const FORM_PATH = '/pqrs';
const receivedPath = (id: string) => `/pqrs/recibida/${id}`;

function html(ctx: Context, status: number, body: string): undefined {
  ctx.status = status;
  ctx.type = 'html';
  // The form may be refilled with personal data after an error: never cache these pages.
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
  return undefined;
}

function isClientError(error: unknown): error is AppError {
  return error instanceof AppError && error.status < 500;
}

async function formView(ctx: Context, extra: Pick<PqrsFormView, 'values' | 'errors'> = {}): Promise<PqrsFormView> {
  const settings = await readSettings(ctx.deps.db);
  return { actionUrl: base, consentText: settings.consentText, privacyPolicyUrl: settings.privacyPolicyUrl, ...extra };
}

/** The failed form post again, with what the citizen typed and every field's error at once. */
async function answerFormError(ctx: Context, body: Record<string, unknown>, error: AppError): Promise<undefined> {
  if (error.status === 429) return html(ctx, 429, renderMessage('Demasiados intentos', 'Espera unos minutos y vuelve a intentarlo.'));
  const errors = (error.errors ?? [{ path: 'form', message: error.message }]).map((fieldError) => ({
    field: fieldError.path.replace(/^body\./, '').split('.')[0]!,
    message: fieldError.message,
  }));
  const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
  const ticked = (name: string) => body[name] === true || body[name] === 'true';
  const values = {
    type: text('type'),
    subject: text('subject'),
    description: text('description'),
    name: text('name'),
    phone: text('phone'),
    email: text('email'),
    documentId: text('documentId'),
    anonymous: ticked('anonymous'),
    consent: ticked('consent'),
    whatsappOptIn: ticked('whatsappOptIn'),
    emailOptIn: ticked('emailOptIn'),
  };
  return html(ctx, error.status, renderPqrsForm(await formView(ctx, { values, errors })));
}

/**
 * The filing's own problems and its files' together (all at once on the form): a 400 when the
 * fields are wrong, else a 415 for files that are not an accepted type.
 */
function withFileErrors<T>(parse: () => T, fileErrors: FieldError[]): T {
  let parsed: T;
  try {
    parsed = parse();
  } catch (error) {
    if (error instanceof ValidationError && fileErrors.length) throw new ValidationError([...(error.errors ?? []), ...fileErrors], error.message, 'validation_failed');
    throw error;
  }
  if (fileErrors.length) {
    throw new AppError(415, 'attachment_type_mismatch', 'Unsupported media type', fileErrors.map((error) => error.message).join(' '), fileErrors);
  }
  return parsed;
}

/** Staff may file what reached them in person, by phone or by email; `channel` is theirs to set. */
function staffChannel(body: Record<string, unknown>, actor: Actor | undefined) {
  if (body.channel === undefined) return undefined;
  if (!actor || !pqrsPolicy.allows(actor, 'handle')) throw new ForbiddenError('Only staff who handle requests may say which channel a request came by.');
  return { actor, channel: parsePart(z.enum(PQRS_CHANNELS), body.channel, 'body.channel') };
}

export const pqrsRouter = new ApiRouter('pqrs', 'The citizen desk: peticiones, quejas, reclamos, sugerencias with the legal clock of Ley 1755')
  .get(FORM_PATH, { summary: 'The public PQRS form (Spanish, works without JavaScript)', access: 'public', produces: { 'text/html': 'The filing form' } }, async ({ ctx }) =>
    html(ctx, 200, renderPqrsForm(await formView(ctx))),
  )
  .get(
    '/pqrs/recibida/:id',
    { summary: 'The page shown after filing: number and due date', access: 'public', params: z.object({ id: z.string() }), produces: { 'text/html': 'Received page' } },
    async ({ ctx, input }) => {
      const request = z.uuid().safeParse(input.params.id).success ? await findRequest(ctx.deps.db, input.params.id) : undefined;
      if (!request) return html(ctx, 404, renderMessage('Solicitud no encontrada', 'No encontramos esta solicitud. Revisa el enlace.'));
      const receivedDay = localDateOf(request.receivedAt, ctx.deps.config.timeZone);
      return html(ctx, 200, renderReceived({ ...request, receivedDay }));
    },
  )
  .post(
    base,
    {
      summary: 'File a PQRS request (public)',
      description:
        'JSON, or the public form’s post, urlencoded or multipart with up to 3 `attachments` files (answered with a 303 to the "recibida" ' +
        'page, or the form again with every error). `consent` must be true ' +
        'unless the request is an anonymous denuncia (`anonymous: true`, only for `type: denuncia`); a named request needs `name` and a phone or an email. ' +
        'Rate-limited per IP and per phone or email. A filled honeypot field `website` is answered 202 and stores nothing. Staff may send `channel` (presencial, telefono, email…) for what reached them another way. The answer carries ' +
        '`uploadToken`, which lets the filer attach files for 24 hours.',
      access: 'optional',
      body: fileBody,
      bodyTypes: ['json', 'form', 'multipart'],
      handlerParsesBody: true,
      status: 201,
      response: filedView,
      errors: {
        403: '`channel` sent by someone who does not handle requests',
        413: 'A form file over 10 MB, or more than 3',
        415: 'A form file that is not an accepted type, or a program',
        429: 'Too many filings from this IP or for this person; see Retry-After',
      },
    },
    async ({ ctx, input, maybeActor }) => {
      const isMultipart = ctx.is('multipart') === 'multipart';
      const isForm = isMultipart || ctx.is('urlencoded') === 'urlencoded';
      let body = (typeof input.body === 'object' && input.body !== null && !Array.isArray(input.body) ? input.body : {}) as Record<string, unknown>;
      try {
        let files: FormFile[] = [];
        let fileErrors: FieldError[] = [];
        if (isMultipart) {
          const multipart = await parseMultipart(ctx.req).catch((error: unknown) => {
            if (error instanceof MultipartError) body = error.fields;
            throw error;
          });
          body = multipart.fields;
          ({ accepted: files, errors: fileErrors } = checkFormFiles(multipart.files));
        }
        const staff = staffChannel(body, maybeActor);
        const parsed = withFileErrors(() => desk.parseFiling(body), fileErrors);
        const meta = { ip: ctx.ip, userAgent: ctx.get('User-Agent') || undefined };
        if (parsed.website) {
          // A honeypot hit looks accepted to the bot and stores nothing.
          if (isForm) return html(ctx, 200, renderMessage('Solicitud recibida', 'Gracias.'));
          ctx.status = 202;
          ctx.body = { status: 'received' };
          return undefined;
        }
        const filed = await desk.fileRequest(ctx.deps, parsed, meta, staff);
        for (const file of files) {
          await desk.addAttachment(ctx.deps, filed.request.id, { declaredType: file.type, fileName: file.fileName, bytes: file.bytes }, { token: filed.uploadToken ?? undefined });
        }
        if (isForm) {
          ctx.status = 303;
          ctx.redirect(receivedPath(filed.request.id));
          return undefined;
        }
        return desk.presentFiled(ctx.deps, filed);
      } catch (error) {
        if (isForm && isClientError(error)) return answerFormError(ctx, body, error);
        throw error;
      }
    },
  )
  .get(
    base,
    {
      summary: 'List requests: the desk’s queue',
      description:
        'Newest first, or with `sort=due` the soonest legal deadline first. Each request carries `businessDaysLeft` (negative once overdue) and `dueState`. ' +
        'Filters: status, type, channel, assigneeId / unassigned, dueState (several with commas), overdue, dueSoon (3 business days or fewer left), dueBefore (a day), ' +
        'territoryId (with the territories inside it), q (subject or number), contactId (managers: a person’s requests, e.g. from their WhatsApp conversation). ' +
        'Viewers get `personal: null` on every request.',
      access: pqrsPolicy.roles('read'),
      query: listQuery,
      response: requestPageView,
    },
    async ({ ctx, input, actor }) => desk.listRequests(ctx.deps, input.query, actor),
  )
  .get(
    `${base}/summary`,
    {
      summary: 'How many requests are in each due state now (the desk’s header)',
      description: 'The same filters as the list’s type, channel, assigneeId, unassigned, territoryId and q.',
      access: pqrsPolicy.roles('read'),
      query: summaryQuery,
      response: summaryView,
    },
    async ({ ctx, input }) => desk.queueSummary(ctx.deps, input.query),
  )
  .get(
    `${base}/assignees`,
    {
      summary: 'Who requests may be assigned to',
      description: 'The active managers and admins, by name: the desk’s assignment picker and its "who handles it" filter. Staff names only, nothing about citizens.',
      access: pqrsPolicy.roles('readTeam'),
      response: assigneesView,
    },
    async ({ ctx }) => desk.assignees(ctx.deps),
  )
  .get(`${base}/settings`, { summary: 'Desk settings', access: pqrsPolicy.roles('configure'), response: settingsView }, async ({ ctx }) => desk.getSettings(ctx.deps))
  .put(
    `${base}/settings`,
    {
      summary: 'Set the consent text and the WhatsApp templates of the citizen notices',
      access: pqrsPolicy.roles('configure'),
      body: settingsBody,
      response: settingsView,
    },
    async ({ ctx, input, actor }) => desk.replaceSettings(ctx.deps, input.body, actor),
  )
  .post(
    `${base}/from-whatsapp`,
    {
      summary: 'Turn an inbound WhatsApp conversation into a request',
      description: 'The conversation’s contact is the citizen; without `description`, the conversation’s latest inbound texts become it.',
      access: pqrsPolicy.roles('handle'),
      body: fromWhatsAppBody,
      status: 201,
      response: requestView,
      errors: { 409: 'The contact’s data was erased (`contact_erased`)' },
    },
    async ({ ctx, input, actor }) => desk.fileFromWhatsApp(ctx.deps, input.body, actor),
  )
  .get(`${base}/:id`, { summary: 'One request', access: pqrsPolicy.roles('read'), params: idParams, response: requestView }, async ({ ctx, input, actor }) =>
    desk.getRequest(ctx.deps, input.params.id, actor),
  )
  .patch(
    `${base}/:id`,
    {
      summary: 'Assign, prioritise, move or reclassify a request',
      description:
        'status (not `answered`: use /answer; closing without an answer needs `note`), assigneeId (a manager or admin, or null), priority, territoryId, ' +
        'type (recomputes the legal term; not after an extension). Every change is kept in the history with `note`.',
      access: pqrsPolicy.roles('handle'),
      params: idParams,
      body: updateBody,
      response: requestView,
      errors: { 409: 'Closed (`request_closed`), answered and not closing (`invalid_transition`), reclassifying after an extension (`already_extended`)' },
    },
    async ({ ctx, input, actor }) => desk.updateRequest(ctx.deps, input.params.id, input.body, actor),
  )
  .get(
    `${base}/:id/history`,
    { summary: 'Every change of a request, oldest first', access: pqrsPolicy.roles('read'), params: idParams, response: historyView },
    async ({ ctx, input, actor }) => desk.requestHistory(ctx.deps, input.params.id, actor),
  )
  .post(
    `${base}/:id/answer`,
    {
      summary: 'Answer a request',
      description:
        'Stops the clock; `close: true` closes it too. Once only. The citizen is told: `personal.answerNotice` says on which channel the notice was queued ' +
        '(`status: queued`, `channel`) or why none could be (`status: unreachable`, `reason`: no_consent, no_address, template_missing, anonymous, erased…).',
      access: pqrsPolicy.roles('handle'),
      params: idParams,
      body: answerBody,
      response: requestView,
      errors: { 409: 'Already answered (`already_answered`) or closed (`request_closed`)' },
    },
    async ({ ctx, input, actor }) => desk.answerRequest(ctx.deps, input.params.id, input.body, actor),
  )
  .post(
    `${base}/:id/extend`,
    {
      summary: 'Extend the deadline once (Ley 1755 de 2015, art. 14)',
      description:
        'Before the deadline, with the reason (told to the citizen: `personal.extensionNotice`); the new deadline a business day after the current one and no later ' +
        'than twice the original term, the day every request shows as `latestExtensionDate` while it may still be extended (the 400 names it too).',
      access: pqrsPolicy.roles('handle'),
      params: idParams,
      body: extendBody,
      response: requestView,
      errors: {
        400: 'Not later than the current deadline (`extension_not_later`), beyond twice the term (`extension_beyond_double`), not a business day (`not_business_day`)',
        409: 'Deadline passed (`deadline_passed`), already extended (`already_extended`), answered or closed (`request_not_open`)',
      },
    },
    async ({ ctx, input, actor }) => desk.extendRequest(ctx.deps, input.params.id, input.body, actor),
  )
  .post(
    `${base}/:id/attachments`,
    {
      summary: 'Attach a file to a request',
      description:
        `The raw file as the body, \`Content-Type\` one of ${desk.ATTACHMENT_TYPES.join(', ')}; its bytes must be that type (415 otherwise; programs ` +
        `never pass). At most ${desk.ATTACHMENT_MAX_BYTES / 1024 / 1024} MB (413) and ${desk.ATTACHMENTS_PER_REQUEST} files per request. ` +
        '`?fileName=` names it. Staff who handle requests, or the filer with `X-Upload-Token` (from the filing, 24 hours).',
      access: 'optional',
      params: idParams,
      query: z.object({ fileName: z.string().max(300).optional() }).strict(),
      body: z.string().describe('The file'),
      bodyTypes: ['pdf', 'jpeg', 'png', 'docx'],
      handlerParsesBody: true,
      status: 201,
      response: attachmentCreatedView,
      errors: {
        401: 'Neither a staff token nor an upload token',
        403: 'The upload token does not match or expired',
        409: 'Closed (`request_closed`) or full (`too_many_attachments`)',
        413: 'Larger than the limit',
        415: 'Not an accepted type, not what Content-Type says (`attachment_type_mismatch`), or a program (`executable_refused`)',
      },
    },
    async ({ ctx, input, maybeActor }) => {
      const declaredLength = ctx.request.length;
      const bytes = await readBody(ctx.req, Number.isFinite(declaredLength) ? declaredLength : undefined, desk.ATTACHMENT_MAX_BYTES, 'An attachment');
      const token = ctx.get('X-Upload-Token') || undefined;
      const uploader = maybeActor && !token ? { actor: maybeActor } : { token };
      return desk.addAttachment(ctx.deps, input.params.id, { declaredType: ctx.request.type, fileName: input.query.fileName, bytes }, uploader);
    },
  )
  .get(
    `${base}/:id/attachments/:attachmentId`,
    {
      summary: 'Download an attachment',
      access: pqrsPolicy.roles('readPersonal'),
      params: attachmentParams,
      produces: Object.fromEntries(desk.ATTACHMENT_TYPES.map((type) => [type, 'The file as uploaded'])),
    },
    async ({ ctx, input }) => {
      const file = await desk.attachmentFile(ctx.deps, input.params.id, input.params.attachmentId);
      ctx.type = file.attachment.type;
      ctx.length = file.size;
      ctx.set('Content-Disposition', `attachment; filename="${encodeURIComponent(file.attachment.fileName)}"`);
      ctx.set('ETag', `"${file.attachment.sha256}"`);
      ctx.body = file.stream;
      return undefined;
    },
  );
