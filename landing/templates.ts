// Server-rendered HTML for the public QR landing page (GET /q/:code and friends).
// Pure functions returning whole documents: no framework, no inline scripts (CSP is
// script-src 'self'), and every interpolated value goes through escapeHtml.
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export type FieldMode = 'required' | 'optional' | 'hidden';

export interface LandingView {
  code: string;
  actionUrl: string;
  thanksUrl: string;
  title: string;
  intro: string;
  interests: { value: string; label: string }[];
  fields: { phone: FieldMode; email: FieldMode; documentId: FieldMode; neighbourhood: FieldMode };
  /** Barrios to choose from; non-empty → a <select name="territoryId"> replaces the free-text neighbourhood. */
  territories: { id: string; name: string }[];
  consentText: string;
  privacyPolicyUrl: string;
  /** Offer the "quiero ser voluntario" box. */
  volunteerSignup: boolean;
  /** What the citizen sent, to refill the form after an error. */
  values?: Partial<Record<'name' | 'phone' | 'email' | 'documentId' | 'neighbourhood' | 'territoryId', string>> & {
    interests?: string[];
    whatsappOptIn?: boolean;
    emailOptIn?: boolean;
    consent?: boolean;
    volunteer?: boolean;
  };
  /** field = name|phone|email|documentId|neighbourhood|territoryId|interests|consent|form */
  errors?: { field: string; message: string }[];
}

export const LANDING_CSS_PATH = '/static/landing.css';
export const LANDING_JS_PATH = '/static/landing.js';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for both element content and (quoted) attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** Only http(s) or same-site paths may become a link: a configured "javascript:" URL must not run. */
function safeUrl(url: string): string {
  return /^(https?:\/\/|\/(?![/\\]))/i.test(url.trim()) ? url.trim() : '#';
}

/** Free text may contain blank lines: each block becomes a paragraph. */
function paragraphs(text: string, cls = ''): string {
  const attr = cls ? ` class="${escapeHtml(cls)}"` : '';
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p${attr}>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

/** A public page in Spanish with the landing stylesheet (and its script when asked). */
export function page(title: string, body: string, withScript = false): string {
  return `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="strict-origin-when-cross-origin">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeHtml(LANDING_CSS_PATH)}">${withScript ? `\n<script src="${escapeHtml(LANDING_JS_PATH)}" defer></script>` : ''}
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export function messagePage(title: string, message: string, cls: 'ok' | 'closed' | 'problem'): string {
  return page(title, `<div class="notice ${cls}"><h1>${escapeHtml(title)}</h1>${paragraphs(message)}</div>`);
}

export function renderThankYou(view: { title: string; message: string }): string {
  return messagePage(view.title, view.message, 'ok');
}

/** Campaign paused, ended or not started yet. */
export function renderClosed(view: { title: string; message: string }): string {
  return messagePage(view.title, view.message, 'closed');
}

export function renderNotFound(): string {
  return messagePage('Código no encontrado', 'Este código QR no existe o ya no está disponible. Revisa que hayas escaneado el afiche correcto.', 'closed');
}

/** Too many attempts (429), generic error. */
export function renderProblem(view: { title: string; message: string }): string {
  return messagePage(view.title, view.message, 'problem');
}

// ---- the form -------------------------------------------------------------

type TextField = 'name' | 'phone' | 'email' | 'documentId' | 'neighbourhood';

const REQ = ' <span class="req">(obligatorio)</span>';

interface Ctx {
  view: LandingView;
  /** Messages per rendered field (already aliased: neighbourhood ↔ territoryId). */
  errors: Map<string, string[]>;
}

function errorAttrs(ctx: Ctx, field: string): string {
  return ctx.errors.has(field) ? ` aria-invalid="true" aria-describedby="err-${escapeHtml(field)}"` : '';
}

function errorText(ctx: Ctx, field: string): string {
  const msgs = ctx.errors.get(field);
  return msgs ? `<p class="field-error" id="err-${escapeHtml(field)}">${msgs.map(escapeHtml).join('<br>')}</p>` : '';
}

/** A label + input block. The error sits between label and control so it is read before typing. */
function textField(ctx: Ctx, name: TextField, mode: FieldMode, label: string, extra: string): string {
  if (mode === 'hidden') return '';
  const required = mode === 'required';
  const value = ctx.view.values?.[name];
  const n = escapeHtml(name); // a literal today; escaped anyway so every interpolation is
  return `<div class="field" data-field="${n}">
<label for="f-${n}">${escapeHtml(label)}${required ? REQ : ''}</label>
${errorText(ctx, name)}<input class="ctl" id="f-${n}" name="${n}"${extra}${value ? ` value="${escapeHtml(value)}"` : ''}${required ? ' required aria-required="true"' : ''}${errorAttrs(ctx, name)}>
</div>`;
}

function territorySelect(ctx: Ctx, mode: FieldMode): string {
  if (mode === 'hidden') return '';
  const required = mode === 'required';
  const selected = ctx.view.values?.territoryId;
  const options = ctx.view.territories.map((t) => `<option value="${escapeHtml(t.id)}"${t.id === selected ? ' selected' : ''}>${escapeHtml(t.name)}</option>`).join('');
  return `<div class="field" data-field="territoryId">
<label for="f-territoryId">Barrio${required ? REQ : ''}</label>
${errorText(ctx, 'territoryId')}<select class="ctl" id="f-territoryId" name="territoryId"${required ? ' required aria-required="true"' : ''}${errorAttrs(ctx, 'territoryId')}>
<option value="">Elige tu barrio</option>${options}
</select>
</div>`;
}

function interestsFieldset(ctx: Ctx): string {
  const { interests } = ctx.view;
  if (interests.length === 0) return '';
  const ticked = new Set(ctx.view.values?.interests ?? []);
  const invalid = ctx.errors.has('interests') ? ' aria-invalid="true"' : '';
  const boxes = interests
    .map(
      (o, i) =>
        `<div class="check"><input type="checkbox" id="f-interests-${i}" name="interests" value="${escapeHtml(o.value)}"${ticked.has(o.value) ? ' checked' : ''}${invalid}><label for="f-interests-${i}">${escapeHtml(o.label)}</label></div>`,
    )
    .join('\n');
  // The group (not each box) is described by the error, so it is announced once on entering it.
  const describedBy = ctx.errors.has('interests') ? ' aria-describedby="err-interests"' : '';
  return `<fieldset class="field" data-field="interests"${describedBy}>
<legend>¿Qué temas te interesan?</legend>
${errorText(ctx, 'interests')}<div class="ctl options">
${boxes}
</div>
</fieldset>`;
}

function checkbox(ctx: Ctx, name: 'consent' | 'whatsappOptIn' | 'emailOptIn' | 'volunteer', labelHtml: string, required: boolean): string {
  const checked = ctx.view.values?.[name] === true ? ' checked' : '';
  const n = escapeHtml(name);
  return `<div class="field" data-field="${n}">
${errorText(ctx, name)}<div class="ctl check"><input type="checkbox" id="f-${n}" name="${n}" value="true"${checked}${required ? ' required aria-required="true"' : ''}${errorAttrs(ctx, name)}><label for="f-${n}">${labelHtml}</label></div>
</div>`;
}

/** Summary links jump to the field's control; a fieldset is not focusable, so aim at its first box. */
const SUMMARY_TARGET: Record<string, string> = { interests: 'f-interests-0' };

function summary(ctx: Ctx, all: { field: string; message: string }[]): string {
  if (all.length === 0) {
    // Present but empty, so the enhancement script can fill it and the live region announces it.
    return '<div class="summary" id="error-summary" role="alert" tabindex="-1" hidden></div>';
  }
  const items = all
    .map(({ field, message }) => {
      const rendered = field !== 'form' && ctx.errors.has(field);
      const target = SUMMARY_TARGET[field] ?? `f-${field}`;
      return `<li>${rendered ? `<a href="#${escapeHtml(target)}">${escapeHtml(message)}</a>` : escapeHtml(message)}</li>`;
    })
    .join('');
  return `<div class="summary" id="error-summary" role="alert" tabindex="-1">
<h2>No pudimos enviar tus datos</h2>
<ul>${items}</ul>
</div>`;
}

export function renderLanding(view: LandingView): string {
  const { fields } = view;
  const useSelect = view.territories.length > 0;
  const neighbourhoodField = useSelect ? 'territoryId' : 'neighbourhood';

  // Keep only errors for controls actually on the page; the rest (form, hidden fields) go to the summary only.
  const rendered = new Set<string>(['name', 'consent']);
  if (fields.phone !== 'hidden') rendered.add('phone').add('whatsappOptIn');
  if (fields.email !== 'hidden') rendered.add('email').add('emailOptIn');
  if (fields.documentId !== 'hidden') rendered.add('documentId');
  if (fields.neighbourhood !== 'hidden') rendered.add(neighbourhoodField);
  if (view.interests.length > 0) rendered.add('interests');
  if (view.volunteerSignup) rendered.add('volunteer');

  const all = (view.errors ?? []).map((e) => ({
    field: e.field === 'neighbourhood' || e.field === 'territoryId' ? neighbourhoodField : e.field,
    message: e.message,
  }));
  const errors = new Map<string, string[]>();
  for (const e of all) {
    if (!rendered.has(e.field)) continue;
    errors.set(e.field, [...(errors.get(e.field) ?? []), e.message]);
  }
  const ctx: Ctx = { view, errors };

  // Phone and email both optional: the server still needs one of them, so say it up front.
  const bothOptional = fields.phone === 'optional' && fields.email === 'optional';
  const contact =
    textField(ctx, 'phone', fields.phone, 'Celular', ' type="tel" inputmode="tel" autocomplete="tel" placeholder="300 123 4567" maxlength="20"') +
    '\n' +
    textField(ctx, 'email', fields.email, 'Correo electrónico', ' type="email" autocomplete="email" spellcheck="false" autocapitalize="off" maxlength="254"');
  const contactBlock = bothOptional
    ? `<fieldset class="group" aria-describedby="hint-contact">
<legend>Contacto</legend>
<p class="hint" id="hint-contact">Déjanos al menos un celular o un correo.</p>
${contact}
</fieldset>`
    : contact;

  const policy = `<a href="${escapeHtml(safeUrl(view.privacyPolicyUrl))}" target="_blank" rel="noopener">Política de tratamiento de datos</a>`;
  const consentLabel = `${escapeHtml(view.consentText).replace(/\n/g, '<br>')}${REQ}`;

  const body = [
    `<h1>${escapeHtml(view.title)}</h1>`,
    paragraphs(view.intro, 'intro'),
    `<form method="post" action="${escapeHtml(view.actionUrl)}" data-thanks="${escapeHtml(view.thanksUrl)}" novalidate>`,
    summary(ctx, all),
    `<input type="hidden" name="code" value="${escapeHtml(view.code)}">`,
    textField(ctx, 'name', 'required', 'Nombre completo', ' type="text" autocomplete="name" autocapitalize="words" maxlength="150"'),
    contactBlock,
    textField(ctx, 'documentId', fields.documentId, 'Cédula', ' type="text" inputmode="numeric" autocomplete="off" maxlength="20"'),
    useSelect
      ? territorySelect(ctx, fields.neighbourhood)
      : textField(ctx, 'neighbourhood', fields.neighbourhood, 'Barrio', ' type="text" autocomplete="address-level3" maxlength="120"'),
    interestsFieldset(ctx),
    `<div class="consent">\n${checkbox(ctx, 'consent', consentLabel, true)}\n<p class="policy">${policy}</p>\n</div>`,
    fields.phone !== 'hidden' ? checkbox(ctx, 'whatsappOptIn', 'Quiero recibir mensajes de la campaña por WhatsApp', false) : '',
    fields.email !== 'hidden' ? checkbox(ctx, 'emailOptIn', 'Quiero recibir correos de la campaña', false) : '',
    view.volunteerSignup ? checkbox(ctx, 'volunteer', 'Quiero ser voluntario o voluntaria de la campaña (el equipo te contactará)', false) : '',
    '<div class="hp" aria-hidden="true"><label>No llenar<input name="website" tabindex="-1" autocomplete="off"></label></div>',
    '<button type="submit" class="btn">Enviar</button>',
    '</form>',
  ];
  return page(view.title, body.filter(Boolean).join('\n'), true);
}

// ---- static assets ----------------------------------------------------------

const assetCache = new Map<string, Buffer>();
let landingDir: string | undefined;

/** The repo's landing/ folder, found from __dirname so both src (tsx) and dist/landing/ work. */
function findLandingDir(): string {
  let dir = __dirname;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'landing');
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`landing: no package.json above ${__dirname}`);
    dir = parent;
  }
}

/** The CSS or JS file as bytes, read once then served from memory. */
export function landingAsset(name: 'landing.css' | 'landing.js'): Buffer {
  let buf = assetCache.get(name);
  if (!buf) {
    landingDir ??= findLandingDir();
    buf = readFileSync(join(landingDir, name));
    assetCache.set(name, buf);
  }
  return buf;
}
