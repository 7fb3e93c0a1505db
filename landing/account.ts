import { escapeHtml, messagePage, page } from './templates';

/** The page a set-password link opens: works without JavaScript; errors come back beside the fields. */
export function renderSetPassword(view: { actionUrl: string; token: string; errors?: { field: string; message: string }[] }): string {
  const errors = view.errors ?? [];
  const fieldError = (field: string) => errors.filter((error) => error.field === field).map((error) => escapeHtml(error.message));
  const general = errors.filter((error) => error.field !== 'newPassword' && error.field !== 'confirmPassword');
  const field = (name: 'newPassword' | 'confirmPassword', label: string) => {
    const messages = fieldError(name);
    const invalid = messages.length ? ` aria-invalid="true" aria-describedby="err-${name}"` : '';
    return `<div class="field">
<label for="f-${name}">${label} <span class="req">(obligatorio)</span></label>
${messages.length ? `<p class="field-error" id="err-${name}">${messages.join('<br>')}</p>` : ''}<input class="ctl" id="f-${name}" name="${name}" type="password" autocomplete="new-password" minlength="10" maxlength="256" required aria-required="true"${invalid}>
</div>`;
  };
  const summary = general.length
    ? `<div class="summary" role="alert"><h2>No pudimos cambiar la clave</h2><ul>${general.map((error) => `<li>${escapeHtml(error.message)}</li>`).join('')}</ul></div>`
    : '';
  return page(
    'Nueva clave',
    [
      '<h1>Elige tu nueva clave</h1>',
      '<p class="intro">Al guardarla se cerrarán tus sesiones abiertas en otros dispositivos. Usa al menos 10 caracteres; una frase larga es más fácil de recordar.</p>',
      `<form method="post" action="${escapeHtml(view.actionUrl)}" novalidate>`,
      summary,
      `<input type="hidden" name="token" value="${escapeHtml(view.token)}">`,
      field('newPassword', 'Nueva clave'),
      field('confirmPassword', 'Repite la nueva clave'),
      '<button type="submit" class="btn">Guardar clave</button>',
      '</form>',
    ]
      .filter(Boolean)
      .join('\n'),
  );
}

export function renderPasswordSet(): string {
  return messagePage('Clave guardada', 'Tu nueva clave quedó guardada. Ya puedes iniciar sesión con ella.', 'ok');
}

export function renderResetLinkInvalid(): string {
  return messagePage(
    'Enlace no válido',
    'Este enlace para cambiar la clave ya se usó, venció o fue reemplazado por uno más reciente. Pide uno nuevo a quien administra las cuentas.',
    'closed',
  );
}
