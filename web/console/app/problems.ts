import { ApiError } from './api';
import { NetworkError } from '../../lib/api';
import type { Problem } from '../../lib/api-types';

/**
 * What a screen says for a problem's `code`, in Spanish (the API's own details are English): a
 * text, or a function of the problem (to repeat a date it names, say).
 */
export type ProblemMessages = Readonly<Record<string, string | ((problem: Problem) => string)>>;

/** The Spanish for this refusal when the screen named its code, else undefined. */
export function knownProblem(error: unknown, messages: ProblemMessages | undefined): string | undefined {
  if (!messages || !(error instanceof ApiError) || !error.problem) return undefined;
  const message = messages[error.problem.code];
  return typeof message === 'function' ? message(error.problem) : message;
}

/** What a refusal says to a person: the screen's words for its code, the problem's detail, or the status in words. */
export function problemMessage(error: unknown, messages?: ProblemMessages): string {
  if (error instanceof NetworkError) return 'No hay conexión con el servidor. Intente de nuevo.';
  if (!(error instanceof ApiError)) return 'Algo salió mal. Intente de nuevo.';
  const known = knownProblem(error, messages);
  if (known) return known;
  if (error.status === 403) return error.problem?.detail ?? 'Su rol no permite esta acción.';
  if (error.status === 429) return 'Demasiados intentos. Espere un momento e intente de nuevo.';
  if (error.status >= 500) return 'El servidor tuvo un problema. Intente de nuevo en un momento.';
  return error.problem?.detail ?? error.message;
}
