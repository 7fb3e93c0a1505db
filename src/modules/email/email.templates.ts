import Mustache from 'mustache';
import { onFirstUse } from '../../kernel/on-first-use';
import type { FieldError } from '../../kernel/errors';
import { ValidationError } from '../../kernel/errors';
import type { TemplateRecord } from './email.campaigns.repository';

const htmlToText = onFirstUse<typeof import('html-to-text')>('html-to-text');
// A sixth of an idle process's heap, and only saving a template compiles (sending uses the HTML stored then).
const mjml = onFirstUse<typeof import('mjml')>('mjml');

/**
 * Templates: MJML (or plain HTML) with logic-less `{{contact.firstName}}` variables, escaped by
 * default. Compiled once when created; per recipient only the variables are filled in.
 */

/** Every name a template may use. Anything else is reported at creation, not sent blank. */
export const TEMPLATE_VARIABLES = ['contact.firstName', 'contact.lastName', 'contact.name', 'contact.email', 'campaign.name', 'unsubscribeUrl'] as const;
const allowed = new Set<string>(TEMPLATE_VARIABLES);

export interface RenderContext {
  contact: { firstName: string; lastName: string; name: string; email: string };
  campaign: { name: string };
  unsubscribeUrl: string;
  /** Only in the send forms: one tracked URL per link of the template. */
  tracking?: Record<string, string>;
}

/** What compiling a template's source makes, as the template's columns keep it. */
export type CompiledTemplate = Pick<TemplateRecord, 'html' | 'text' | 'sendHtml' | 'sendText' | 'variables' | 'links'>;

type Token = [string, string, number, number, Token[]?, ...unknown[]];

function lineOf(source: string, offset: number): number {
  return source.slice(0, offset).split('\n').length;
}

/** Variables used, or field errors for unknown ones, raw output and partials. */
export function checkVariables(source: string, path: string): { variables: string[]; errors: FieldError[] } {
  const variables = new Set<string>();
  const errors: FieldError[] = [];
  let tokens: Token[];
  try {
    tokens = Mustache.parse(source) as unknown as Token[];
  } catch (error) {
    return { variables: [], errors: [{ path, message: `Template syntax: ${(error as Error).message.split('\n')[0]}` }] };
  }
  const visit = (list: Token[]) => {
    for (const token of list) {
      const [type, value, start] = token;
      const where = `line ${lineOf(source, start)}`;
      if (type === 'text' || type === '!') continue;
      if (type === '>') errors.push({ path, message: `${where}: partials ({{> ${value}}}) are not supported` });
      else if (type === '&' || type === '{') errors.push({ path, message: `${where}: unescaped output ({{{${value}}}}) is not allowed; use {{${value}}}` });
      else if (type === '=') errors.push({ path, message: `${where}: changing delimiters is not supported` });
      else if (!allowed.has(value)) errors.push({ path, message: `${where}: unknown variable {{${value}}}; known: ${TEMPLATE_VARIABLES.join(', ')}` });
      else variables.add(value);
      if (Array.isArray(token[4])) visit(token[4]);
    }
  };
  visit(tokens);
  return { variables: [...variables].sort(), errors };
}

interface MjmlError {
  line: number;
  message: string;
  tagName: string;
}

/**
 * MJML's own options: no comments, and no web fonts (its default imports Google Fonts, which every
 * recipient's mail client would then fetch, and which the console's policy refuses in the preview).
 */
const MJML_OPTIONS = { keepComments: false, fonts: {} };

const MJML_TAG = /<(\/?)(mjml|mj-[a-z0-9-]+)\b[^>]*?(\/?)>/gi;

/**
 * The MJML tags that do not close as they opened (`<mj-text>…</mj-txt>`), and those never closed:
 * MJML's parser lets them pass without a word and drops whatever they swallowed, so a template
 * saved that way sends an empty email. Messages start with the line, as MJML's do.
 */
export function unbalancedMjmlTags(source: string): FieldError[] {
  // Comments may hold tags; kept as their line breaks so that lines still count right.
  const text = source.replace(/<!--[\s\S]*?-->/g, (comment) => comment.replace(/[^\n]/g, ' '));
  const lineAt = (index: number) => text.slice(0, index).split('\n').length;
  const open: { name: string; line: number; said: boolean }[] = [];
  const errors: FieldError[] = [];
  const neverClosed = (tag: { name: string; line: number; said: boolean }) => {
    if (!tag.said) errors.push({ path: 'body.mjml', message: `line ${tag.line}: <${tag.name}> is never closed` });
  };
  for (const match of text.matchAll(MJML_TAG)) {
    const [, closing, rawName, selfClosing] = match;
    const name = rawName!.toLowerCase();
    if (selfClosing) continue;
    if (!closing) {
      open.push({ name, line: lineAt(match.index), said: false });
      continue;
    }
    const depth = open.findLastIndex((tag) => tag.name === name);
    if (depth >= 0) {
      // What is still open above it was never closed: each said once, then the parser's way on.
      for (const tag of open.splice(depth).slice(1)) neverClosed(tag);
      continue;
    }
    const top = open.at(-1);
    const line = lineAt(match.index);
    errors.push({
      path: 'body.mjml',
      message: top ? `line ${line}: </${name}> does not close <${top.name}>, opened on line ${top.line}` : `line ${line}: </${name}> closes nothing`,
    });
    if (top) top.said = true;
  }
  for (const tag of open) neverClosed(tag);
  return errors;
}

async function compileMjml(source: string): Promise<string> {
  const unbalanced = unbalancedMjmlTags(source);
  if (unbalanced.length) throw new ValidationError(unbalanced, 'The MJML has errors.', 'invalid_mjml');
  try {
    // mjml 5 returns a Promise (its bundled types still describe the synchronous 4.x result).
    const result = await (mjml() as unknown as (input: string, options: object) => Promise<{ html: string }>)(source, { validationLevel: 'strict', ...MJML_OPTIONS });
    return result.html;
  } catch (error) {
    const list = (error as { errors?: MjmlError[] }).errors;
    const errors: FieldError[] = list?.length
      ? list.map((item) => ({ path: 'body.mjml', message: `line ${item.line}: ${item.tagName ? `<${item.tagName}> ` : ''}${item.message}` }))
      : [{ path: 'body.mjml', message: 'line 1: not MJML (the document must be <mjml><mj-body>…</mj-body></mjml>)' }];
    throw new ValidationError(errors, 'The MJML has errors.', 'invalid_mjml');
  }
}

/** One problem of a draft, with the line of the source it is on (1 when the source is not MJML at all). */
export interface DraftProblem {
  field: 'subject' | 'mjml' | 'html';
  line: number;
  message: string;
}

const LINE_PREFIX = /^line (\d+): /;

/**
 * A draft rendered for the editor's live preview, saving nothing: MJML compiled at validation level
 * soft (the HTML is made even when a rule is broken, so the preview keeps up while the problems are
 * listed), the same checks creation makes (strict MJML, variables, links) as problems with their
 * line, and the result filled in for a sample person with the links as written. What would make
 * `createTemplate` refuse the draft is exactly `problems` not being empty.
 */
export async function renderDraft(input: { subject: string; mjml?: string | undefined; html?: string | undefined }, context: RenderContext) {
  const field = input.mjml !== undefined ? 'mjml' : 'html';
  const source = input.mjml ?? input.html ?? '';
  const problems: DraftProblem[] = [];
  const fromChecks = (list: FieldError[], where: DraftProblem['field']) => {
    for (const error of list) {
      const line = LINE_PREFIX.exec(error.message);
      problems.push({ field: where, line: line ? Number(line[1]) : 1, message: error.message.replace(LINE_PREFIX, '') });
    }
  };
  const subjectCheck = checkVariables(input.subject, 'body.subject');
  const bodyCheck = checkVariables(source, `body.${field}`);
  fromChecks(subjectCheck.errors, 'subject');
  fromChecks(bodyCheck.errors, field);
  let html = source;
  if (input.mjml !== undefined) {
    try {
      fromChecks(unbalancedMjmlTags(input.mjml), field);
      const result = await (mjml() as unknown as (input: string, options: object) => Promise<{ html: string; errors?: MjmlError[] }>)(input.mjml, {
        validationLevel: 'soft',
        ...MJML_OPTIONS,
      });
      html = result.html;
      for (const item of result.errors ?? []) problems.push({ field, line: item.line, message: `${item.tagName ? `<${item.tagName}> ` : ''}${item.message}` });
    } catch {
      problems.push({ field, line: 1, message: 'not MJML (the document must be <mjml><mj-body>…</mj-body></mjml>)' });
      html = '';
    }
  }
  const tracked = trackLinks(html);
  for (const error of tracked.errors) problems.push({ field, line: 1, message: error.message });
  problems.sort((a, b) => (a.field === b.field ? a.line - b.line : a.field === 'subject' ? -1 : 1));
  // With a broken variable the text is shown as written: Mustache cannot be trusted to fill it in.
  const fill = (text: string, escape: boolean) => {
    if (subjectCheck.errors.length || bodyCheck.errors.length) return text;
    return escape ? Mustache.render(text, context) : Mustache.render(text, context, {}, plain);
  };
  const filled = fill(html, true);
  return {
    subject: fill(input.subject, false)
      .replace(/[\r\n]+/g, ' ')
      .trim(),
    html: filled,
    text: filled ? toText(filled) : '',
    problems,
  };
}

const ANCHOR_HREF = /(<a\b[^>]*?\bhref\s*=\s*)(["'])(.*?)\2/gis;

function decodeEntities(value: string): string {
  return value
    .replace(/&amp;/g, '&')
    .replace(/&#x2F;/gi, '/')
    .replace(/&#x3D;/gi, '=')
    .replace(/&quot;/g, '"');
}

/**
 * Replaces each http(s) link of an anchor by a `{{{tracking.linkN}}}` slot and lists the
 * originals. A link holding a variable cannot be tracked as one URL; only the unsubscribe
 * link may (and it is never click-tracked).
 */
function trackLinks(html: string): { sendHtml: string; links: string[]; errors: FieldError[] } {
  const links: string[] = [];
  const errors: FieldError[] = [];
  const sendHtml = html.replace(ANCHOR_HREF, (whole, prefix: string, quote: string, rawHref: string) => {
    const href = decodeEntities(rawHref.trim());
    if (/^\{\{\s*unsubscribeUrl\s*\}\}$/.test(href)) return `${prefix}${quote}{{{unsubscribeUrl}}}${quote}`;
    if (href.includes('{{')) {
      errors.push({ path: 'body', message: `link "${href.slice(0, 80)}": variables inside links are not supported (only {{unsubscribeUrl}})` });
      return whole;
    }
    if (!/^https?:\/\//i.test(href)) return whole;
    let index = links.indexOf(href);
    if (index < 0) index = links.push(href) - 1;
    return `${prefix}${quote}{{{tracking.link${index}}}}${quote}`;
  });
  if (links.length > 200) errors.push({ path: 'body', message: 'at most 200 distinct links per template' });
  return { sendHtml, links, errors };
}

/** An unsubscribe link is mandatory in every message: added at the end when the template lacks one. */
function ensureUnsubscribeLink(html: string): string {
  if (html.includes('{{{unsubscribeUrl}}}')) return html;
  const footer =
    '<div style="font-family:Arial,sans-serif;font-size:12px;color:#666;text-align:center;padding:16px">' +
    '¿No quieres recibir más correos? <a href="{{{unsubscribeUrl}}}" style="color:#666">Cancelar suscripción</a></div>';
  return /<\/body>/i.test(html) ? html.replace(/<\/body>/i, `${footer}</body>`) : `${html}${footer}`;
}

/** The open pixel, last in the body: a 1×1 image whose URL is the recipient's open token. */
function addOpenPixel(html: string): string {
  const pixel = '<img src="{{{tracking.pixel}}}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0" />';
  return /<\/body>/i.test(html) ? html.replace(/<\/body>/i, `${pixel}</body>`) : `${html}${pixel}`;
}

export function toText(html: string): string {
  return htmlToText().convert(html, {
    wordwrap: 100,
    selectors: [
      { selector: 'img', format: 'skip' },
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    ],
  });
}

export async function compileTemplate(input: { subject: string; mjml?: string | undefined; html?: string | undefined }): Promise<CompiledTemplate> {
  const sourcePath = input.mjml !== undefined ? 'body.mjml' : 'body.html';
  const source = input.mjml ?? input.html ?? '';
  const subjectCheck = checkVariables(input.subject, 'body.subject');
  const bodyCheck = checkVariables(source, sourcePath);
  const errors = [...subjectCheck.errors, ...bodyCheck.errors];
  if (errors.length) throw new ValidationError(errors, 'The template uses variables it cannot have.', 'invalid_template');
  const html = input.mjml !== undefined ? await compileMjml(input.mjml) : input.html!;
  const tracked = trackLinks(html);
  if (tracked.errors.length) throw new ValidationError(tracked.errors, 'The template has links that cannot be tracked.', 'invalid_template');
  const sendHtml = addOpenPixel(ensureUnsubscribeLink(tracked.sendHtml));
  return {
    html,
    text: toText(html),
    sendHtml,
    sendText: toText(sendHtml),
    variables: [...new Set([...subjectCheck.variables, ...bodyCheck.variables])].sort(),
    links: tracked.links,
  };
}

const plain = { escape: (value: string) => value };

export function renderSubject(subject: string, context: RenderContext): string {
  return Mustache.render(subject, context, {}, plain)
    .replace(/[\r\n]+/g, ' ')
    .trim();
}

/** HTML: variables escaped. Text: the same values, not escaped (it is not HTML). */
export function renderBody(template: { sendHtml: string; sendText: string }, context: RenderContext): { html: string; text: string } {
  return { html: Mustache.render(template.sendHtml, context), text: Mustache.render(template.sendText, context, {}, plain) };
}

export function splitName(name: string): { firstName: string; lastName: string } {
  const parts = name.trim().split(/\s+/);
  return { firstName: parts[0] ?? '', lastName: parts.slice(1).join(' ') };
}
