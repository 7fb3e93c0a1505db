import type { ComponentType } from 'react';
import { rolePermitted, type Role } from '../../../src/kernel/auth/roles';
import { agendaPolicy } from '../../../src/modules/agenda/agenda.policy';
import { audiencePolicy } from '../../../src/modules/audience/audience.policy';
import { authPolicy } from '../../../src/modules/auth/auth.policy';
import { dashboardPolicy } from '../../../src/modules/dashboard/dashboard.policy';
import { emailPolicy } from '../../../src/modules/email/email.policy';
import { financePolicy } from '../../../src/modules/finance/finance.policy';
import { gotvPolicy } from '../../../src/modules/gotv/gotv.policy';
import { popularityPolicy } from '../../../src/modules/popularity/popularity.policy';
import { pqrsPolicy } from '../../../src/modules/pqrs/pqrs.policy';
import { territoriesPolicy } from '../../../src/modules/territories/territories.policy';
import { qrPolicy } from '../../../src/modules/qr/qr.policy';
import { volunteersPolicy } from '../../../src/modules/volunteers/volunteers.policy';
import { socialPolicy } from '../../../src/modules/social/social.policy';
import { whatsappPolicy } from '../../../src/modules/whatsapp/whatsapp.policy';
import { WEB_APPS } from '../../lib/apps';

/** A screen of the console, or another app it links to. Who sees it comes from the module's policy, never a second list. */
export interface ConsoleEntry {
  /** The console path (`/personas`), or the other app's URL (`/war-room/`) when `external`. */
  path: string;
  label: string;
  group: 'Campaña' | 'Día electoral' | 'Organización' | 'Cuenta';
  /** The policy's roles for the action the screen is for. */
  roles: readonly Role[];
  description: string;
  /** The screen's code, loaded when first opened (each module is its own chunk). */
  page?: () => Promise<{ default: ComponentType }>;
  external?: boolean;
}

export const CONSOLE_ENTRIES: readonly ConsoleEntry[] = [
  {
    path: '/',
    label: 'Inicio',
    group: 'Campaña',
    roles: dashboardPolicy.roles('readOverview'),
    description: 'Indicadores de la campaña, tendencias y alertas en vivo',
    page: () => import('../dashboard/DashboardPage'),
  },
  {
    path: '/personas',
    label: 'Personas',
    group: 'Campaña',
    roles: audiencePolicy.roles('listPeople'),
    description: 'Buscar personas, su historia y sus autorizaciones; importar y fusionar duplicados',
    page: () => import('../people/PeoplePage'),
  },
  {
    path: '/whatsapp',
    label: 'WhatsApp',
    group: 'Campaña',
    roles: whatsappPolicy.roles('converse'),
    description: 'Conversaciones con la gente: responder, asignar, resolver y radicar PQRS',
    page: () => import('../whatsapp/InboxPage'),
  },
  {
    path: '/whatsapp/campanas',
    label: 'Campañas de WhatsApp',
    group: 'Campaña',
    roles: whatsappPolicy.roles('readCampaigns'),
    description: 'Plantillas y envíos masivos a un segmento, con su avance en vivo',
    page: () => import('../whatsapp/CampaignsPage'),
  },
  {
    path: '/correo',
    label: 'Correo',
    group: 'Campaña',
    roles: emailPolicy.roles('readCampaigns'),
    description: 'Boletines: plantillas MJML con vista previa y prueba, campañas con prueba A/B y sus cifras',
    page: () => import('../email/EmailPage'),
  },
  {
    path: '/pqrs',
    label: 'PQRS',
    group: 'Campaña',
    roles: pqrsPolicy.roles('read'),
    description: 'Peticiones, quejas y reclamos de la ciudadanía, por fecha de vencimiento legal',
    page: () => import('../pqrs/PqrsPage'),
  },
  {
    path: '/afiches',
    label: 'Afiches QR',
    group: 'Campaña',
    roles: qrPolicy.roles('read'),
    description: 'Campañas de afiches: códigos, hoja para imprimir, registro con fecha de retiro, análisis y contactos',
    page: () => import('../posters/PostersPage'),
  },
  {
    path: '/popularidad',
    label: 'Popularidad',
    group: 'Campaña',
    roles: popularityPolicy.roles('read'),
    description: 'Encuestas con su ficha técnica (Ley 2494), promedio con su banda, ventaja, puntaje compuesto y DOFA',
    page: () => import('../popularity/PopularityPage'),
  },
  {
    path: '/redes',
    label: 'Redes sociales',
    group: 'Campaña',
    roles: socialPolicy.roles('read'),
    description: 'Competidores y sus perfiles, publicaciones, alertas en vivo y comparaciones',
    page: () => import('../social/SocialPage'),
  },
  {
    path: '/agenda',
    label: 'Agenda',
    group: 'Organización',
    roles: agendaPolicy.roles('read'),
    description: 'Calendario de eventos en hora de Bogotá: respuestas con lista de espera, turnos, inventario, tareas y calendario para suscribirse',
    page: () => import('../agenda/AgendaPage'),
  },
  {
    path: '/agenda/puerta',
    label: 'Registrar entradas',
    group: 'Organización',
    roles: agendaPolicy.roles('edit'),
    description: 'La puerta de los eventos que organiza: buscar por nombre o leer el código, y registrar a quien llega sin inscribirse',
    page: () => import('../agenda/DoorPage'),
  },
  {
    path: '/territorios',
    label: 'Territorios',
    group: 'Organización',
    roles: territoriesPolicy.roles('read'),
    description: 'Departamentos, municipios, comunas y barrios: editar, quitar lo que nada usa, importar DIVIPOLE',
    page: () => import('../territories/TerritoriesPage'),
  },
  {
    path: '/finanzas',
    label: 'Finanzas',
    group: 'Organización',
    roles: financePolicy.roles('read'),
    description: 'Libro por el catálogo del Formulario 5B, soportes, tope de gastos, periodos cerrados e informe para Cuentas Claras',
    page: () => import('../finance/FinancePage'),
  },
  {
    path: '/voluntarios',
    label: 'Voluntarios',
    group: 'Organización',
    roles: volunteersPolicy.roles('readPyramid'),
    description: 'El equipo: fichas, pirámide de líderes con metas y votos amarrados, clasificación y actividades',
    page: () => import('../volunteers/VolunteersPage'),
  },
  {
    path: '/usuarios',
    label: 'Usuarios',
    group: 'Organización',
    roles: authPolicy.roles('manageUsers'),
    description: 'Cuentas del equipo: invitar, cambiar roles, desactivar, enlaces de contraseña y sesiones',
    page: () => import('../users/UsersPage'),
  },
  {
    path: '/dia-electoral/importar',
    label: 'Puestos y votantes',
    group: 'Día electoral',
    roles: gotvPolicy.roles('manageStations'),
    description: 'Importar los puestos, su participación anterior y los votantes confirmados, revisando el archivo antes de escribir',
    page: () => import('../gotv/ImportPage'),
  },
  {
    path: '/dia-electoral/brigadas',
    label: 'Brigadas',
    group: 'Día electoral',
    roles: gotvPolicy.roles('listBrigades'),
    description: 'Integrantes, líder y puestos de cada brigada, con su zona en el mapa',
    page: () => import('../gotv/BrigadesPage'),
  },
  {
    path: '/dia-electoral/ajustes',
    label: 'Ajustes del día',
    group: 'Día electoral',
    roles: gotvPolicy.roles('readSettings'),
    description: 'Fecha, horario, días siguientes y curva de participación de la proyección',
    page: () => import('../gotv/SettingsPage'),
  },
  {
    path: '/dia-electoral/incidentes',
    label: 'Incidentes',
    group: 'Día electoral',
    roles: gotvPolicy.roles('watch'),
    description: 'Incidentes que reportaron las brigadas, con sus fotos',
    page: () => import('../gotv/IncidentsPage'),
  },
  {
    path: '/war-room/',
    label: 'Sala de situación',
    group: 'Día electoral',
    roles: WEB_APPS.warRoom.roles,
    description: 'Mapa de puestos, participación y proyección en vivo',
    external: true,
  },
  {
    path: '/brigada/',
    label: 'App de brigada',
    group: 'Día electoral',
    roles: WEB_APPS.brigada.roles,
    description: 'Reportar quién votó desde el celular, con o sin señal',
    external: true,
  },
];

export const entriesFor = (role: Role): ConsoleEntry[] => CONSOLE_ENTRIES.filter((entry) => rolePermitted(role, entry.roles));
