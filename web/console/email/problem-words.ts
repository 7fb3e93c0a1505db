/**
 * The template checks' problems in Spanish. The API words them in English, as all its messages,
 * and MJML's own are English too; the editor shows them beside the line, so each known form is
 * said again here, and an unknown one is shown as it came.
 */
const FORMS: [RegExp, (...parts: string[]) => string][] = [
  [/^unknown variable (\{\{[^}]*\}\}); known: (.*)$/, (variable, known) => `la variable ${variable} no existe; se pueden usar: ${known}`],
  [/^partials \(\{\{> ([^}]*)\}\}\) are not supported$/, (name) => `no se admiten plantillas parciales ({{> ${name}}})`],
  [/^unescaped output \((.*)\) is not allowed; use (.*)$/, (written, instead) => `${written} no se admite; escriba ${instead}`],
  [/^changing delimiters is not supported$/, () => 'no se pueden cambiar los delimitadores {{ }}'],
  [/^Template syntax: (.*)$/, (detail) => `la plantilla está mal escrita (${detail})`],
  [/^not MJML \(.*\)$/, () => 'no es MJML: el documento debe ser <mjml><mj-body>…</mj-body></mjml>'],
  [/^<\/([a-z0-9-]+)> does not close <([a-z0-9-]+)>, opened on line (\d+)$/, (closing, open, line) => `</${closing}> no cierra <${open}>, abierta en la línea ${line}`],
  [/^<([a-z0-9-]+)> is never closed$/, (tag) => `<${tag}> nunca se cierra: su contenido no saldría en el correo`],
  // MJML's own, which come after the tag they are about.
  [/^(<[a-z0-9-]+>) (.*)$/, (tag, rest) => `${tag} ${problemInSpanish(rest)}`],
  [/^<\/([a-z0-9-]+)> closes nothing$/, (tag) => `</${tag}> no cierra ninguna etiqueta abierta`],
  [
    /^link "(.*)": variables inside links are not supported \(only \{\{unsubscribeUrl\}\}\)$/,
    (link) => `el enlace «${link}» lleva una variable: solo {{unsubscribeUrl}} puede ir en un enlace`,
  ],
  [/^Element ([a-z0-9-]+) doesn't exist or is not registered$/, (tag) => `la etiqueta <${tag}> no existe en MJML`],
  [/^([a-z0-9-]+) cannot be used inside ([a-z0-9-]+), only inside: (.*)$/, (tag, parent, allowed) => `<${tag}> no puede ir dentro de <${parent}>; solo dentro de: ${allowed}`],
  [/^Attribute ([\w-]+) is illegal$/, (attribute) => `el atributo ${attribute} no existe para esta etiqueta`],
  [
    /^Attribute ([\w-]+) has invalid value: (.*?) for type \w+, only accepts (.*)$/,
    (attribute, value, accepted) => `el atributo ${attribute} no acepta «${value}»; acepta: ${accepted}`,
  ],
];

export function problemInSpanish(message: string): string {
  for (const [form, say] of FORMS) {
    const match = form.exec(message);
    if (match) return say(...match.slice(1));
  }
  return message;
}
