// Server-rendered pages of the public PQRS desk (GET /pqrs and the "recibida" page). Whole
// documents from pure functions, no inline scripts (the page CSP is script-src 'self'; this form
// needs no script at all), every interpolated value through escapeHtml; the QR landing's stylesheet.
import { escapeHtml, page } from '../../../landing/templates';
import type { PqrsType, StoredNotice } from './pqrs.entities';

export const TYPE_LABELS: Record<PqrsType, string> = {
  peticion: 'Petición (respuesta en 15 días hábiles)',
  queja: 'Queja (15 días hábiles)',
  reclamo: 'Reclamo (15 días hábiles)',
  sugerencia: 'Sugerencia (15 días hábiles)',
  denuncia: 'Denuncia (15 días hábiles; puede ser anónima)',
  consulta: 'Consulta (30 días hábiles)',
  informacion: 'Solicitud de información o documentos (10 días hábiles)',
};

const SHORT_TYPE: Record<PqrsType, string> = {
  peticion: 'Petición',
  queja: 'Queja',
  reclamo: 'Reclamo',
  sugerencia: 'Sugerencia',
  denuncia: 'Denuncia',
  consulta: 'Consulta',
  informacion: 'Solicitud de información',
};

/** The form's fields, in page order; errors on any other path go to the summary only. */
const FIELDS = ['type', 'subject', 'description', 'anonymous', 'name', 'phone', 'email', 'documentId', 'attachments', 'consent', 'whatsappOptIn', 'emailOptIn'] as const;
type FormField = (typeof FIELDS)[number];

export interface PqrsFormView {
  actionUrl: string;
  consentText: string;
  privacyPolicyUrl: string | null;
  values?: Partial<Record<'type' | 'subject' | 'description' | 'name' | 'phone' | 'email' | 'documentId', string>> &
    Partial<Record<'anonymous' | 'consent' | 'whatsappOptIn' | 'emailOptIn', boolean>>;
  errors?: { field: string; message: string }[];
}

/** Only http(s) or same-site paths may become a link. */
function safeUrl(url: string): string {
  return /^(https?:\/\/|\/(?![/\\]))/i.test(url.trim()) ? url.trim() : '#';
}

const REQ = ' <span class="req">(obligatorio)</span>';

class FormRenderer {
  private readonly errors = new Map<string, string[]>();

  constructor(private readonly view: PqrsFormView) {
    for (const error of view.errors ?? []) {
      if (!(FIELDS as readonly string[]).includes(error.field)) continue;
      this.errors.set(error.field, [...(this.errors.get(error.field) ?? []), error.message]);
    }
  }

  private invalid(field: FormField): string {
    return this.errors.has(field) ? ` aria-invalid="true" aria-describedby="err-${field}"` : '';
  }

  private errorText(field: FormField): string {
    const messages = this.errors.get(field);
    return messages ? `<p class="field-error" id="err-${field}">${messages.map(escapeHtml).join('<br>')}</p>` : '';
  }

  summary(): string {
    const all = this.view.errors ?? [];
    if (!all.length) return '';
    const items = all
      .map(({ field, message }) => {
        const linked = (FIELDS as readonly string[]).includes(field);
        return `<li>${linked ? `<a href="#f-${escapeHtml(field)}">${escapeHtml(message)}</a>` : escapeHtml(message)}</li>`;
      })
      .join('');
    return `<div class="summary" id="error-summary" role="alert" tabindex="-1">
<h2>No pudimos radicar tu solicitud</h2>
<ul>${items}</ul>
</div>`;
  }

  text(field: 'subject' | 'name' | 'phone' | 'email' | 'documentId', label: string, required: boolean, extra: string): string {
    const value = this.view.values?.[field];
    return `<div class="field">
<label for="f-${field}">${escapeHtml(label)}${required ? REQ : ''}</label>
${this.errorText(field)}<input id="f-${field}" name="${field}"${extra}${value ? ` value="${escapeHtml(value)}"` : ''}${required ? ' required aria-required="true"' : ''}${this.invalid(field)}>
</div>`;
  }

  description(): string {
    const value = this.view.values?.description ?? '';
    return `<div class="field">
<label for="f-description">Describe tu solicitud${REQ}</label>
${this.errorText('description')}<textarea id="f-description" name="description" rows="7" maxlength="10000" required aria-required="true"${this.invalid('description')}>${escapeHtml(value)}</textarea>
</div>`;
  }

  type(): string {
    const selected = this.view.values?.type;
    const options = (Object.keys(TYPE_LABELS) as PqrsType[])
      .map((type) => `<option value="${type}"${type === selected ? ' selected' : ''}>${escapeHtml(TYPE_LABELS[type])}</option>`)
      .join('');
    return `<div class="field">
<label for="f-type">Tipo de solicitud${REQ}</label>
${this.errorText('type')}<select id="f-type" name="type" required aria-required="true"${this.invalid('type')}>
<option value="">Elige el tipo</option>${options}
</select>
</div>`;
  }

  /** Files cannot be refilled after an error: the hint says so when there was one. */
  attachments(): string {
    const again = this.view.errors?.length ? ' Si ya habías elegido archivos, vuelve a elegirlos.' : '';
    return `<div class="field">
<label for="f-attachments">Adjuntos (opcional)</label>
<p class="hint" id="hint-attachments">Hasta 3 archivos PDF, JPG, PNG o Word (.docx) de 10 MB cada uno.${escapeHtml(again)}</p>
${this.errorText('attachments')}<input type="file" id="f-attachments" name="attachments" multiple accept=".pdf,.jpg,.jpeg,.png,.docx,application/pdf,image/jpeg,image/png" aria-describedby="hint-attachments${this.errors.has('attachments') ? ' err-attachments' : ''}"${this.errors.has('attachments') ? ' aria-invalid="true"' : ''}>
</div>`;
  }

  checkbox(field: 'anonymous' | 'consent' | 'whatsappOptIn' | 'emailOptIn', labelHtml: string, required: boolean): string {
    const checked = this.view.values?.[field] ? ' checked' : '';
    return `<div class="field">
${this.errorText(field)}<div class="check"><input type="checkbox" id="f-${field}" name="${field}" value="true"${checked}${required ? ' aria-required="true"' : ''}${this.invalid(field)}><label for="f-${field}">${labelHtml}</label></div>
</div>`;
  }
}

export function renderPqrsForm(view: PqrsFormView): string {
  const form = new FormRenderer(view);
  const policy = view.privacyPolicyUrl
    ? `<p class="policy"><a href="${escapeHtml(safeUrl(view.privacyPolicyUrl))}" target="_blank" rel="noopener">Política de tratamiento de datos</a></p>`
    : '';
  const body = [
    '<h1>Peticiones, quejas, reclamos y sugerencias</h1>',
    '<p class="intro">Radica aquí tu solicitud. Te daremos un número de radicado y la fecha límite de respuesta, contada en días hábiles según la Ley 1755 de 2015.</p>',
    `<form method="post" action="${escapeHtml(view.actionUrl)}" enctype="multipart/form-data" novalidate>`,
    form.summary(),
    form.type(),
    form.text('subject', 'Asunto', true, ' type="text" maxlength="200"'),
    form.description(),
    '<fieldset class="group" aria-describedby="hint-citizen">',
    '<legend>Tus datos</legend>',
    '<p class="hint" id="hint-citizen">Necesitamos tu nombre y un celular o un correo para responderte. Solo una denuncia puede ser anónima: marca la casilla y deja tus datos en blanco.</p>',
    form.checkbox('anonymous', 'Presentar la denuncia de forma anónima (no guardaremos tus datos ni podremos responderte)', false),
    form.text('name', 'Nombre completo', false, ' type="text" autocomplete="name" maxlength="150"'),
    form.text('phone', 'Celular', false, ' type="tel" inputmode="tel" autocomplete="tel" placeholder="300 123 4567" maxlength="30"'),
    form.text('email', 'Correo electrónico', false, ' type="email" autocomplete="email" spellcheck="false" autocapitalize="off" maxlength="254"'),
    form.text('documentId', 'Cédula', false, ' type="text" inputmode="numeric" autocomplete="off" maxlength="20"'),
    '</fieldset>',
    form.attachments(),
    `<div class="consent">\n${form.checkbox('consent', `${escapeHtml(view.consentText).replace(/\n/g, '<br>')} <span class="req">(obligatorio si no es anónima)</span>`, false)}\n${policy}\n</div>`,
    form.checkbox('whatsappOptIn', 'Quiero recibir por WhatsApp el número de radicado y la respuesta', false),
    form.checkbox('emailOptIn', 'Quiero recibir por correo el número de radicado y la respuesta', false),
    '<div class="hp" aria-hidden="true"><label>No llenar<input name="website" tabindex="-1" autocomplete="off"></label></div>',
    '<button type="submit" class="btn">Radicar solicitud</button>',
    '</form>',
  ];
  return page('Radicar una PQRS', body.filter(Boolean).join('\n'));
}

/** A local day ('YYYY-MM-DD') as Colombians read it: "viernes, 18 de diciembre de 2026". */
export function spanishDate(day: string): string {
  return new Intl.DateTimeFormat('es-CO', { dateStyle: 'full', timeZone: 'UTC' }).format(new Date(`${day}T12:00:00Z`));
}

const KEEP_NUMBER = 'Guarda el número de radicado: con él puedes preguntar a la campaña por tu respuesta.';

/**
 * What will happen next, as the filing's notice turned out (`receivedNotice`): the channel the
 * number was sent by is the one the answer will take; without a channel the citizen authorised,
 * nobody will write, and the page says so rather than promise a message.
 */
function followUp(anonymous: boolean, notice: StoredNotice | null): string {
  if (anonymous) return 'Tu denuncia es anónima: guarda el número de radicado para consultarla.';
  if (notice?.status === 'queued' && notice.channel === 'whatsapp') return 'Te enviamos el número de radicado por WhatsApp y por ese medio te enviaremos la respuesta.';
  if (notice?.status === 'queued' && notice.channel === 'email') return 'Te enviamos el número de radicado a tu correo y por ese medio te enviaremos la respuesta.';
  if (notice?.status === 'unreachable' && notice.reason === 'no_consent') {
    return `No marcaste ninguna casilla para recibir la respuesta por WhatsApp o por correo, así que no te escribiremos. ${KEEP_NUMBER}`;
  }
  if (notice?.status === 'unreachable' && notice.reason === 'no_address') return `No nos dejaste un medio para escribirte, así que no te enviaremos la respuesta. ${KEEP_NUMBER}`;
  if (notice?.status === 'unreachable') return `Por ahora no podemos escribirte por el medio que autorizaste. ${KEEP_NUMBER}`;
  return `Te enviaremos la respuesta por el medio que autorizaste. ${KEEP_NUMBER}`;
}

export function renderReceived(view: { number: string; type: PqrsType; receivedDay: string; dueDate: string; anonymous: boolean; receivedNotice: StoredNotice | null }): string {
  const facts = [
    ['Número de radicado', view.number],
    ['Tipo', SHORT_TYPE[view.type]],
    ['Recibida el', spanishDate(view.receivedDay)],
    ['Fecha límite de respuesta', spanishDate(view.dueDate)],
  ]
    .map(([term, value]) => `<dt>${escapeHtml(term)}</dt><dd>${escapeHtml(value)}</dd>`)
    .join('');
  const follow = followUp(view.anonymous, view.receivedNotice);
  return page(
    'Solicitud recibida',
    `<div class="notice ok"><h1>Solicitud recibida</h1>
<dl class="summary-facts">${facts}</dl>
<p>${escapeHtml(follow)}</p>
<p><a href="/pqrs">Radicar otra solicitud</a></p></div>`,
  );
}

export function renderMessage(title: string, message: string): string {
  return page(title, `<div class="notice problem"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></div>`);
}
