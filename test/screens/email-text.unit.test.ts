/**
 * The email editor's problems in Spanish: the template checks and MJML word them in English, and
 * the editor says each known form again; an unknown one is shown as it came.
 */
import { unbalancedMjmlTags } from '../../src/modules/email/email.templates';
import { problemInSpanish } from '../../web/console/email/problem-words';

it.each([
  ['unknown variable {{contact.apellido}}; known: contact.firstName, contact.name', 'la variable {{contact.apellido}} no existe; se pueden usar: contact.firstName, contact.name'],
  ['</mj-txt> does not close <mj-text>, opened on line 4', '</mj-txt> no cierra <mj-text>, abierta en la línea 4'],
  ['<mj-image> is never closed', '<mj-image> nunca se cierra: su contenido no saldría en el correo'],
  ["<mj-sectionn> Element mj-sectionn doesn't exist or is not registered", '<mj-sectionn> la etiqueta <mj-sectionn> no existe en MJML'],
  [
    '<mj-column> mj-column cannot be used inside mj-body, only inside: mj-attributes, mj-section',
    '<mj-column> <mj-column> no puede ir dentro de <mj-body>; solo dentro de: mj-attributes, mj-section',
  ],
  ['<mj-text> Attribute colr is illegal', '<mj-text> el atributo colr no existe para esta etiqueta'],
  [
    '<mj-text> Attribute align has invalid value: middle for type Enum, only accepts left, right, center',
    '<mj-text> el atributo align no acepta «middle»; acepta: left, right, center',
  ],
  ['unescaped output ({{{contact.name}}}) is not allowed; use {{contact.name}}', '{{{contact.name}}} no se admite; escriba {{contact.name}}'],
  ['something MJML says one day', 'something MJML says one day'],
])('%s', (message, spanish) => {
  expect(problemInSpanish(message)).toBe(spanish);
});

describe('MJML tags that do not close as they opened', () => {
  it('names a closing tag that closes another, once, and the line of each', () => {
    const source = ['<mjml>', '<mj-body>', '<mj-section><mj-column>', '<mj-text>Hola {{contact.firstName}}</mj-txt>', '</mj-column></mj-section>', '</mj-body>', '</mjml>'].join(
      '\n',
    );
    expect(unbalancedMjmlTags(source).map((error) => error.message)).toEqual(['line 4: </mj-txt> does not close <mj-text>, opened on line 4']);
  });

  it('names a tag left open, and lets comments, self-closing tags and a good document pass', () => {
    expect(
      unbalancedMjmlTags('<mjml><mj-body><mj-section><mj-column>\n<mj-image src="x.png"><mj-text>Hola</mj-text></mj-column></mj-section></mj-body></mjml>').map(
        (error) => error.message,
      ),
    ).toEqual(['line 2: <mj-image> is never closed']);
    expect(
      unbalancedMjmlTags('<mjml><mj-body><!-- <mj-text> --><mj-section><mj-column><mj-image src="x.png" /><mj-text>Hola</mj-text></mj-column></mj-section></mj-body></mjml>'),
    ).toEqual([]);
    expect(unbalancedMjmlTags('</mj-text>').map((error) => error.message)).toEqual(['line 1: </mj-text> closes nothing']);
  });
});
