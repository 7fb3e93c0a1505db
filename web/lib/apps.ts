import { gotvPolicy } from '../../src/modules/gotv/gotv.policy';
import type { WebApp } from './session';

/**
 * Who may use each web app: the roles of the policy action the app is for, never a second list
 * (the console's menu links to the other two with these same roles, web/console/app/modules.ts).
 */
export const WEB_APPS = {
  /** Every signed-in role has a console (a role without the dashboard gets a home page with its links). */
  console: { roles: [], refusal: '' },
  /** The war room follows the `gotv` room, every station and report. */
  warRoom: { roles: gotvPolicy.roles('followWarRoom'), refusal: 'Esta cuenta no tiene acceso a la sala de situación.' },
  /** The brigade app reports turnout and incidents at stations. */
  brigada: { roles: gotvPolicy.roles('reportAt'), refusal: 'Esta cuenta no tiene acceso a la app de brigada: es para quienes reportan en los puestos.' },
} as const satisfies Record<string, WebApp>;
