import { problemMessage } from '../app/problems';

/** The accounts API the screen lists and changes. */
export const USERS = '/api/users';

/** The screen's Spanish for the refusals it expects, by problem code. */
export const USER_PROBLEMS = {
  email_taken: 'Ya hay una cuenta con este correo.',
  last_admin: 'Es la última cuenta de administración activa: dé ese rol a otra persona antes.',
  user_inactive: 'La cuenta está desactivada: actívela antes de crear el enlace.',
} as const;

export const userProblems = (error: unknown): string => problemMessage(error, USER_PROBLEMS);
