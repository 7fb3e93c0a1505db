/** The People screens' words for the API's codes: every one of them in Spanish, with a fallback that never shows a code raw where a word is known. */
import type { ConsentState } from '../../../src/modules/audience/audience.people.schemas';

export const CONSENT_STATE_LABELS: Record<ConsentState, string> = {
  reachable: 'Autorizado',
  opted_out: 'Retiró la autorización',
  no_consent: 'Sin autorización',
};

/** What the list's filter offers for each state. */
export const CONSENT_FILTER_LABELS: Record<ConsentState, string> = {
  reachable: 'Se le puede escribir',
  opted_out: 'Retiró la autorización',
  no_consent: 'Nunca autorizó',
};

export const CONSENT_STATE_COLOURS: Record<ConsentState, string> = { reachable: 'green', opted_out: 'red', no_consent: 'gray' };

export const CHANNEL_LABELS = { whatsapp: 'WhatsApp', email: 'Correo' } as const;

/** The modules a fact of the timeline comes from. */
export const MODULE_LABELS: Record<string, string> = {
  audience: 'Personas',
  qr: 'Afiches QR',
  whatsapp: 'WhatsApp',
  email: 'Correo',
  volunteers: 'Voluntariado',
  agenda: 'Agenda',
  pqrs: 'PQRS',
  gotv: 'Día electoral',
  finance: 'Finanzas',
};

/** What kind of fact each is; the title the module wrote says the rest. */
export const KIND_LABELS: Record<string, string> = {
  contact_created: 'Registro',
  note: 'Nota',
  correction: 'Corrección',
  tags_changed: 'Etiquetas',
  data_exported: 'Exportación de datos',
  consent_given: 'Autorización',
  consent_withdrawn: 'Retiro de autorización',
  lead_captured: 'Formulario de afiche',
  lead_resubmitted: 'Formulario reenviado',
  message_in: 'Mensaje recibido',
  message_out: 'Mensaje enviado',
  email_sent: 'Correo enviado',
  email_bounced: 'Correo rebotado',
  email_opened: 'Correo abierto',
  email_clicked: 'Clic en un correo',
  email_unsubscribed: 'Baja del correo',
  notice_sent: 'Aviso enviado',
  notice_bounced: 'Aviso rebotado',
  volunteer_joined: 'Ingreso al voluntariado',
  activity: 'Actividad',
  rsvp: 'Respuesta a un evento',
  shift_signup: 'Inscripción a un turno',
  check_in: 'Asistencia',
  request_filed: 'PQRS radicada',
  request_extended: 'Plazo prorrogado',
  request_answered: 'PQRS respondida',
  request_closed: 'PQRS cerrada',
  voter_registered: 'Votante confirmado',
  voter_contacted: 'Contacto el día electoral',
  turnout_reported: 'Votó',
  donation: 'Donación',
  donation_reversed: 'Donación anulada',
};

export const ORIGIN_LABELS: Record<string, string> = {
  qr_campaign: 'Afiche QR',
  pqrs: 'PQRS',
  agenda_event: 'Evento',
  volunteers: 'Voluntariado',
  import: 'Importación',
};

/** Where a consent or withdrawal came from. */
export const CONSENT_SOURCE_LABELS: Record<string, string> = {
  qr: 'formulario de un afiche QR',
  pqrs: 'formulario de PQRS',
  pqrs_staff: 'PQRS radicada por el equipo',
  volunteers: 'registro de voluntariado',
  agenda_check_in: 'registro en un evento',
  agenda_checkin: 'registro en un evento',
  gotv_report: 'reporte del día electoral',
  import: 'importación de un archivo',
  manual: 'registro manual',
  staff: 'registrado por el equipo',
  whatsapp_stop: 'pidió la baja por WhatsApp',
  email_unsubscribe: 'enlace para dejar de recibir correos',
};

export const DUPLICATE_REASON_LABELS: Record<string, string> = {
  same_document: 'Misma cédula',
  same_phone_digits: 'Mismo teléfono escrito de otra forma',
  same_email: 'Mismo correo',
  same_name_territory: 'Mismo nombre en el mismo territorio',
  similar_name: 'Nombres parecidos',
};

export const MERGE_STATUS_LABELS: Record<string, string> = {
  undoable: 'Se puede deshacer',
  expired: 'Ya no se puede deshacer',
  undone: 'Deshecha',
  erased: 'Datos suprimidos',
};

/** The fields of a person as the import, the corrections and the list name them. */
export const FIELD_LABELS: Record<string, string> = {
  name: 'nombre',
  phone: 'teléfono',
  email: 'correo',
  documentId: 'cédula',
  territoryCode: 'código de territorio',
  territoryId: 'id de territorio',
  neighbourhood: 'barrio',
  interests: 'intereses',
  tags: 'etiquetas',
  whatsappConsent: 'autoriza WhatsApp',
  emailConsent: 'autoriza correo',
};

export const label = (labels: Record<string, string>, code: string): string => labels[code] ?? code.replace(/_/g, ' ');

/** What an erasure kept because a law obliges it, by `module:kind`, in staff's words with the law. */
export const RETAINED_LABELS: Record<string, string> = {
  'finance:entries':
    'Movimientos del libro de finanzas con su nombre y cédula: la ley obliga a reportar cada aporte con su donante y a conservar los libros 10 años (Ley 1475 de 2011, arts. 25 y 27; Ley 962 de 2005, art. 28).',
};

/** Where other people's text still writes an erased person's full name, by the erasure's `kind`, and the screen that shows it. */
export const MENTION_PLACES: Record<string, { label: string; path?: (recordId: string) => string }> = {
  staffNotes: { label: 'Nota del equipo sobre otra persona', path: (id) => `/personas/${id}` },
  eventDescriptions: { label: 'Descripción de un evento', path: (id) => `/agenda/${id}` },
  taskTitles: { label: 'Tarea de un evento', path: (id) => `/agenda/${id}` },
  taskNotes: { label: 'Notas de una tarea de un evento', path: (id) => `/agenda/${id}` },
  allocationNotes: { label: 'Nota de una reserva de inventario', path: (id) => `/agenda/${id}` },
  incidentDescriptions: { label: 'Descripción de un incidente del día electoral', path: () => '/dia-electoral/incidentes' },
  callerNotes: { label: 'Nota de una llamada a otro votante (app de brigada)' },
  requestDescriptions: { label: 'Descripción de otra PQRS', path: (id) => `/pqrs/${id}` },
  answers: { label: 'Respuesta de otra PQRS', path: (id) => `/pqrs/${id}` },
  extensionReasons: { label: 'Motivo de prórroga de otra PQRS', path: (id) => `/pqrs/${id}` },
  historyNotes: { label: 'Nota en el historial de otra PQRS', path: (id) => `/pqrs/${id}` },
  activityNotes: { label: 'Notas de una actividad de voluntariado', path: (id) => `/voluntarios/${id}` },
  // Messages already sent or received: the page shows them, nobody edits them.
  messageTexts: { label: 'Mensaje de WhatsApp con otra persona (ya enviado: no se edita)', path: (id) => `/personas/${id}` },
  templateValues: { label: 'Valores de una plantilla de WhatsApp enviada a otra persona (no se edita)', path: (id) => `/personas/${id}` },
  noticeSubjects: { label: 'Asunto de un aviso por correo a otra persona (ya enviado: no se edita)', path: (id) => `/personas/${id}` },
  noticeTexts: { label: 'Aviso por correo a otra persona (ya enviado: no se edita)', path: (id) => `/personas/${id}` },
  noticeHtml: { label: 'Aviso por correo a otra persona, en HTML (ya enviado: no se edita)', path: (id) => `/personas/${id}` },
};

/** A person whose page no longer exists: never held, or their data suppressed. */
export const PERSON_GONE = 'Esta persona no existe o sus datos fueron suprimidos.';
