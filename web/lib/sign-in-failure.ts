import { ApiError, NetworkError } from './api';
import { AccessRefused } from './session';

/** What a sign-in form says when signing in failed (the plain-TS apps' form; the console's says it with its own fields). No DOM here: unit-tested in Node. */
export function signInFailure(error: unknown): string {
  if (error instanceof AccessRefused) return error.message;
  if (error instanceof ApiError && error.status === 401) return 'Correo o contraseña incorrectos.';
  if (error instanceof NetworkError) return 'Sin conexión: para ingresar se necesita red.';
  return 'No se pudo ingresar. Intente de nuevo.';
}
