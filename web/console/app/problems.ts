import { ApiError } from './api';
import { NetworkError } from '../../lib/api';

/** What a refusal says to a person: the problem's detail, or the status in words. */
export function problemMessage(error: unknown): string {
  if (error instanceof NetworkError) return 'No hay conexión con el servidor. Intente de nuevo.';
  if (!(error instanceof ApiError)) return 'Algo salió mal. Intente de nuevo.';
  if (error.status === 403) return error.problem?.detail ?? 'Su rol no permite esta acción.';
  if (error.status === 429) return 'Demasiados intentos. Espere un momento e intente de nuevo.';
  if (error.status >= 500) return 'El servidor tuvo un problema. Intente de nuevo en un momento.';
  return error.problem?.detail ?? error.message;
}
