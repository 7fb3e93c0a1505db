import { ApiError, NetworkError } from './api';
import { byId, setText } from './dom';
import { AccessRefused, type Session, type WebSession } from './session';

/**
 * The sign-in form of the plain-TS apps (war room, brigade app): `#login-form` with `#email` and
 * `#password`, its message in `#login-error`. Signs in through the shared session, which refuses a
 * role the app is not for; `onSignedIn` then opens the app.
 */
export function bindSignInForm(session: WebSession, onSignedIn: (signedIn: Session, form: HTMLFormElement) => void): void {
  byId<HTMLFormElement>('login-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setText(byId('login-error'), '');
    session.signIn(String(data.get('email')), String(data.get('password'))).then(
      (signedIn) => onSignedIn(signedIn, form),
      (error: unknown) => setText(byId('login-error'), signInFailure(error)),
    );
  });
}

/** Shows the sign-in in place of the app's screen (`screen`), with why (a session that ended) when there is a reason. */
export function showSignIn(screen: HTMLElement, message = ''): void {
  screen.hidden = true;
  byId('login').hidden = false;
  setText(byId('login-error'), message);
}

/** What a sign-in form says when signing in failed (the console's form says it with its own fields). */
export function signInFailure(error: unknown): string {
  if (error instanceof AccessRefused) return error.message;
  if (error instanceof ApiError && error.status === 401) return 'Correo o contraseña incorrectos.';
  if (error instanceof NetworkError) return 'Sin conexión: para ingresar se necesita red.';
  return 'No se pudo ingresar. Intente de nuevo.';
}
