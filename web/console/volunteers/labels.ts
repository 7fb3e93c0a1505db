/** The Volunteers screens' Spanish for the API's codes. */
import type { ActivityType, ActivityUnit, VolunteerStatus } from '../../../src/modules/volunteers/volunteers.values';
import { problemMessage } from '../app/problems';
import type { Tone } from '../app/tones';

export const STATUS_LABELS: Record<VolunteerStatus, string> = { prospect: 'Por contactar', active: 'Activo', inactive: 'Inactivo' };
export const STATUS_TONES: Record<VolunteerStatus, Tone> = { prospect: 'blue', active: 'green', inactive: 'gray' };

export const TYPE_LABELS: Record<ActivityType, string> = {
  canvassing: 'Puerta a puerta',
  phone_bank: 'Llamadas',
  event_staff: 'Apoyo en evento',
  poster_placement: 'Afiches',
  whatsapp_outreach: 'WhatsApp',
  training: 'Capacitación',
  gotv: 'Día electoral',
  other: 'Otra',
};

export const UNIT_LABELS: Record<ActivityUnit, [one: string, many: string]> = {
  doors: ['puerta', 'puertas'],
  calls: ['llamada', 'llamadas'],
  posters: ['afiche', 'afiches'],
  voters_registered: ['votante inscrito', 'votantes inscritos'],
  messages: ['mensaje', 'mensajes'],
  people: ['persona', 'personas'],
  turnout_reports: ['reporte de votación', 'reportes de votación'],
  other: ['unidad', 'unidades'],
};

export const SOURCE_LABELS: Record<string, string> = {
  manual: 'Registrada',
  gotv_report: 'Reporte del día electoral',
  gotv_contact: 'Contacto del día electoral',
  agenda_checkin: 'Asistencia a evento',
};

export const SKILL_LABELS: Record<string, string> = {
  canvassing: 'Puerta a puerta',
  phone_bank: 'Llamadas',
  driving: 'Conducción',
  logistics: 'Logística',
  social_media: 'Redes sociales',
  design: 'Diseño',
  legal: 'Jurídica',
  electoral_witness: 'Testigo electoral',
  training: 'Capacitación',
  photography: 'Fotografía',
};

export const WEEKDAY_LABELS: Record<string, string> = { mon: 'lun', tue: 'mar', wed: 'mié', thu: 'jue', fri: 'vie', sat: 'sáb', sun: 'dom' };
export const SLOT_LABELS: Record<string, string> = { morning: 'mañana', afternoon: 'tarde', evening: 'noche' };

export const SOURCE_OF_VOLUNTEER: Record<string, string> = { staff: 'Registro del equipo', lead: 'Contacto de un afiche QR', qr: 'Se inscribió en un afiche QR' };

/** A skill in words: the catalogue's in Spanish, a free one as written. */
export const skillLabel = (skill: string): string => SKILL_LABELS[skill] ?? skill;

export const VOLUNTEER_PROBLEMS = {
  user_linked: 'Esa cuenta ya está vinculada a otro voluntario.',
  pyramid_cycle: 'Ese cambio cerraría un círculo en la pirámide.',
  own_leader: 'Nadie puede ser su propio líder.',
} as const;

export const volunteerProblem = (error: unknown): string => problemMessage(error, VOLUNTEER_PROBLEMS);

/** The person's data was erased, or the link is wrong. */
export const VOLUNTEER_GONE = 'No hay ningún voluntario con esta dirección, o sus datos fueron suprimidos.';
