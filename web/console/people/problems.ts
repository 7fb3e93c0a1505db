import { ApiError } from '../app/api';
import { problemMessage } from '../app/problems';
import { label, MODULE_LABELS, PERSON_GONE } from './labels';

/** Why a module refused to merge two records, for staff (the API's own explanation is English). */
const MERGE_REFUSALS: Record<string, string> = {
  gotv:
    'Día electoral no permite la fusión: las dos son votantes confirmados, cada una con su cédula, su puesto y su mesa, y una persona vota una sola vez. ' +
    'Quite el votante equivocado o desvincúlelo de su persona en el módulo del día electoral, y fusione después.',
  volunteers:
    'Voluntariado no permite la fusión: las dos son voluntarias, cada una con su líder, su equipo, sus metas y su cuenta. ' +
    'Qué lugar conserva la persona en la red lo decide el equipo: ajústelo en Voluntariado antes de fusionar.',
};

/** What a refusal of the People API says to staff, in Spanish: its code first, the shell's wording for the rest. */
export function peopleProblem(error: unknown): string {
  if (!(error instanceof ApiError)) return problemMessage(error);
  const problem = error.problem;
  switch (problem?.code) {
    case 'not_found':
      return PERSON_GONE;
    case 'search_too_short':
      return 'Escriba al menos 3 letras de un nombre, o 4 dígitos de un teléfono o de una cédula.';
    case 'validation_failed':
      if (problem.errors?.some((item) => item.path.startsWith('query.created')))
        return 'Revise las fechas: la de inicio no puede ser posterior a la final, y ambas entre 2000 y 2099.';
      if (problem.errors?.some((item) => item.path === 'query.cursor')) return 'La lista cambió. Vuelva a la primera página.';
      return problemMessage(error);
    case 'phone_held':
      return 'Otra persona ya tiene este teléfono.';
    case 'email_held':
      return 'Otra persona ya tiene este correo.';
    case 'identity_required':
      return 'Una persona necesita un teléfono o un correo: es como la campaña la reconoce.';
    case 'merge_refused': {
      const module = typeof problem.module === 'string' ? problem.module : '';
      return MERGE_REFUSALS[module] ?? `El módulo ${label(MODULE_LABELS, module)} no permite fusionar estas dos personas. Revise sus datos en ese módulo primero.`;
    }
    case 'contact_merged':
      return 'Una de las dos ya fue fusionada con otra persona. Recargue la página.';
    case 'same_contact':
      return 'Es la misma persona: elija dos distintas.';
    case 'undo_window_passed':
      return 'Pasaron las 24 horas: esta fusión ya no se puede deshacer.';
    case 'merge_undone':
      return 'Esta fusión ya fue deshecha.';
    case 'merge_erased':
      return 'Los datos de esta persona fueron suprimidos después de la fusión: no queda nada que separar.';
    case 'survivor_merged':
      return 'La persona que quedó fue fusionada después con otra: deshaga primero esa fusión.';
    case 'identity_taken':
      return 'Otra persona registrada después tiene ahora el teléfono o el correo del registro fusionado: no se puede deshacer.';
    default:
      return problemMessage(error);
  }
}
