import { byId, setText } from './dom';
import type { Session, WebSession } from './session';
import { signInFailure } from './sign-in-failure';

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
