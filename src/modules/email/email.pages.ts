/** The small public pages behind unsubscribe links, in Spanish, self-contained (no external assets). */

const STYLE =
  'body{font-family:system-ui,-apple-system,Segoe UI,Roboto,Arial,sans-serif;background:#f4f5f7;color:#1f2933;margin:0;padding:24px}' +
  'main{max-width:480px;margin:40px auto;background:#fff;border-radius:12px;padding:28px;box-shadow:0 1px 4px rgba(0,0,0,.08)}' +
  'h1{font-size:1.35rem;margin:0 0 12px}p{line-height:1.5}button{font-size:1rem;padding:12px 20px;border:0;border-radius:8px;background:#b42318;color:#fff;cursor:pointer}';

function page(title: string, content: string): string {
  return `<!doctype html><html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${title}</title><style>${STYLE}</style></head><body><main>${content}</main></body></html>`;
}

/** `action` is `/e/u/<token>`: base64url only, nothing to escape. */
export function renderUnsubscribePage(action: string): string {
  return page(
    'Cancelar suscripción',
    `<h1>¿Quieres dejar de recibir nuestros correos?</h1><p>Si confirmas, no te volveremos a escribir por correo electrónico. Puedes volver a inscribirte cuando quieras.</p>` +
      `<form method="post" action="${action}"><button type="submit">Sí, cancelar mi suscripción</button></form>`,
  );
}

export function renderUnsubscribeDone(): string {
  return page('Suscripción cancelada', '<h1>Listo, cancelamos tu suscripción</h1><p>No recibirás más correos de la campaña. Gracias por habernos leído.</p>');
}

export function renderUnsubscribeNotFound(): string {
  return page('Enlace no válido', '<h1>Este enlace no es válido</h1><p>Revisa que lo hayas copiado completo desde el correo.</p>');
}
