import type { DueState, PqrsChannel, PqrsPriority, PqrsStatus, PqrsType } from '../../../src/modules/pqrs/pqrs.constants';
import { plural } from '../app/format';
import type { PqrsNotice, PqrsRequest } from './data';

/** The desk's words for the API's codes (es-CO). */

export const TYPE_LABELS: Record<PqrsType, string> = {
  peticion: 'Petición',
  queja: 'Queja',
  reclamo: 'Reclamo',
  sugerencia: 'Sugerencia',
  denuncia: 'Denuncia',
  consulta: 'Consulta',
  informacion: 'Solicitud de información o documentos',
};

/** The same, short enough for the queue's column. */
export const TYPE_SHORT: Record<PqrsType, string> = { ...TYPE_LABELS, informacion: 'Información' };

export const STATUS_LABELS: Record<PqrsStatus, string> = {
  received: 'Recibida',
  in_progress: 'En trámite',
  waiting_citizen: 'Esperando al ciudadano',
  answered: 'Respondida',
  closed: 'Cerrada',
};

export const PRIORITY_LABELS: Record<PqrsPriority, string> = { low: 'Baja', normal: 'Normal', high: 'Alta', urgent: 'Urgente' };

export const CHANNEL_LABELS: Record<PqrsChannel, string> = {
  web: 'Formulario web',
  whatsapp: 'WhatsApp',
  email: 'Correo electrónico',
  presencial: 'Presencial',
  telefono: 'Teléfono',
};

/** The summary's states, in the header's order. */
export const DUE_STATE_LABELS: Record<DueState, string> = {
  overdue: 'Vencidas',
  due_soon: 'Vencen pronto',
  on_time: 'A tiempo',
  answered: 'Respondidas',
  closed: 'Cerradas sin respuesta',
};

import type { Tone } from '../app/tones';

export { TONES, type Tone } from '../app/tones';

export const DUE_STATE_TONES: Record<DueState, Tone> = { overdue: 'red', due_soon: 'orange', on_time: 'blue', answered: 'green', closed: 'gray' };

const businessDays = (count: number) => plural(count, 'día hábil', 'días hábiles');

/** The legal countdown in words: "vence en 2 días hábiles", "vence hoy", "vencida hace 3 días hábiles", "respondida a tiempo". */
export function countdown(request: Pick<PqrsRequest, 'dueState' | 'businessDaysLeft' | 'answeredLate'>): string {
  switch (request.dueState) {
    case 'overdue':
      return `vencida hace ${businessDays(Math.max(1, -request.businessDaysLeft))}`;
    case 'due_soon':
    case 'on_time':
      return request.businessDaysLeft === 0 ? 'vence hoy' : `vence en ${businessDays(request.businessDaysLeft)}`;
    case 'answered':
      return request.answeredLate ? 'respondida fuera de término' : 'respondida a tiempo';
    case 'closed':
      return 'cerrada sin respuesta';
  }
}

export const termLabel = (termDays: number) => `${plural(termDays, 'día hábil', 'días hábiles')}`;

const NOTICE_CHANNELS: Record<string, string> = { whatsapp: 'WhatsApp', email: 'correo electrónico' };

/** Why nobody could be told (the notices module's reasons, and the desk's own). */
const UNREACHABLE: Record<string, string> = {
  no_consent: 'la persona no autorizó que le escribiéramos por un canal donde tengamos su dirección',
  no_address: 'no dejó un celular ni un correo donde escribirle',
  template_missing: 'falta aprobar la plantilla de WhatsApp de este aviso y no hay un correo autorizado',
  suppressed: 'su dirección rechazó mensajes anteriores o se dio de baja',
  erased: 'sus datos fueron suprimidos a su solicitud',
  anonymous: 'la denuncia es anónima',
};

const channelOf = (notice: NonNullable<PqrsNotice>) => NOTICE_CHANNELS[notice.channel ?? ''] ?? notice.channel ?? 'un canal';
const reasonOf = (notice: NonNullable<PqrsNotice>) => UNREACHABLE[notice.reason ?? ''] ?? 'no hay un canal disponible';

/** What came of a notice to the citizen, in a sentence. */
export function noticeOutcome(notice: NonNullable<PqrsNotice>): string {
  if (notice.status === 'queued') return `El aviso al ciudadano quedó en cola para enviarse por ${channelOf(notice)}.`;
  if (notice.status === 'duplicate') return 'El aviso al ciudadano ya se había enviado.';
  return `No se pudo avisar al ciudadano: ${reasonOf(notice)}.`;
}

/** The same, after "aviso de respuesta al ciudadano: " in the history. */
export function noticeShort(notice: NonNullable<PqrsNotice>): string {
  if (notice.status === 'queued') return `en cola por ${channelOf(notice)}`;
  if (notice.status === 'duplicate') return 'ya se había enviado';
  return `no se pudo enviar porque ${reasonOf(notice)}`;
}
