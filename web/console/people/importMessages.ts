import { csvFileProblem, translateProblems, type ProblemPatterns } from '../app/importMessages';
import { FIELD_LABELS, label } from './labels';

/** The people import's problems in Spanish (see `translateProblems`), field names included. */
const PROBLEMS: ProblemPatterns = [
  [
    /documentId: this cédula belongs to another contact \(([^)]*)\); the two may be one person: merge them \([^)]*\) or correct the cédula/g,
    () => 'cédula: ya pertenece a otra persona (pueden ser la misma: fusiónelas o corrija la cédula)',
  ],
  [
    /documentId: the contact matched by phone or email has another cédula; an import does not change a cédula/g,
    () => 'cédula: la persona que coincide por teléfono o correo tiene otra cédula, y una importación no cambia cédulas',
  ],
  [/documentId: the same cédula as line (\d+), for another person/g, (line) => `cédula: la misma de la línea ${line}, para otra persona`],
  [/documentId: a cédula has 5 to 12 digits/g, () => 'cédula: debe tener de 5 a 12 dígitos'],
  [/name: required, at least 2 characters/g, () => 'nombre: es obligatorio, con al menos 2 caracteres'],
  [/phone or email: give one \([^)]*\)/g, () => 'teléfono o correo: escriba uno de los dos (la persona se reconoce por su teléfono o, si no tiene, por su correo)'],
  [/phone: not a valid phone number/g, () => 'teléfono: no es un número válido'],
  [/email: not an email address/g, () => 'correo: no es una dirección de correo'],
  [
    /email: (\d+) contacts have this email; add the phone to say which one this is/g,
    (count) => `correo: ${count} personas tienen este correo (agregue el teléfono para saber cuál es)`,
  ],
  [/territoryId: not a territory id/g, () => 'id de territorio: no es un id válido'],
  [/territoryId: no territory has id \S+/g, () => 'id de territorio: ningún territorio tiene ese id'],
  [/territoryCode: fill territoryId or territoryCode, not both/g, () => 'código de territorio: llene el id o el código del territorio, no los dos'],
  [
    /territoryCode: (.+?) names (\d+) territories \(one per type\); use territoryId/g,
    (code, count) => `código de territorio: ${code} corresponde a ${count} territorios, uno por tipo (use el id)`,
  ],
  [/territoryCode: (.+?) names no territory/g, (code) => `código de territorio: ningún territorio tiene el código ${code}`],
  [/the same person as line (\d+) \(by phone or email\)/g, (line) => `es la misma persona de la línea ${line} (por teléfono o correo)`],
  [/(\w+): write si or no \(true\/false, 1\/0\)/g, (field) => `${label(FIELD_LABELS, field)}: escriba sí o no`],
  [/(\w+): each item has at most (\d+) characters/g, (field, max) => `${label(FIELD_LABELS, field)}: cada elemento tiene como máximo ${max} caracteres`],
  [/(\w+): at most (\d+) items/g, (field, max) => `${label(FIELD_LABELS, field)}: como máximo ${max} elementos`],
  [/(\w+): at most (\d+) characters/g, (field, max) => `${label(FIELD_LABELS, field)}: como máximo ${max} caracteres`],
  // Warnings: a row imported with something left undone.
  [
    /(whatsapp|email)Consent: yes, but the person has no (?:phone|email); no consent recorded/g,
    (channel) =>
      channel === 'whatsapp'
        ? 'autoriza WhatsApp: dice sí, pero la persona no tiene teléfono (no se registró autorización)'
        : 'autoriza correo: dice sí, pero la persona no tiene correo (no se registró autorización)',
  ],
  [
    /(whatsapp|email)Consent: the person withdrew from \w+ on (\d{4}-\d{2}-\d{2}); an import does not re-open it \([^)]*\)/g,
    (channel, date) =>
      `${channel === 'whatsapp' ? 'autoriza WhatsApp' : 'autoriza correo'}: la persona retiró su autorización el ${date}, y una importación no la vuelve a abrir (debe autorizar de nuevo ella misma)`,
  ],
];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

export interface RowProblem {
  /** Each problem of the row, in Spanish where known. */
  problems: string[];
  /** People the message names (the other holder of a cédula), to link to. */
  contactIds: string[];
}

/** A row's message from the import, in Spanish, one problem per item. */
export function rowProblems(message: string): RowProblem {
  // Only the people a cédula belongs to (a territory's id is no one to open).
  const holders = /belongs to another contact \(([^)]*)\)/.exec(message)?.[1] ?? '';
  const contactIds = [...new Set(holders.match(UUID) ?? [])];
  return { problems: translateProblems(message, PROBLEMS, FIELD_LABELS), contactIds };
}

/** What a file refused as a whole says (`400 unknown_columns` and the rest). */
export function fileProblem(code: string | undefined, problem: Record<string, unknown>): string | null {
  const list = (key: string) => (Array.isArray(problem[key]) ? (problem[key] as unknown[]).map(String).join(', ') : '');
  switch (code) {
    case 'unknown_columns':
      return `El encabezado tiene columnas que la importación no lee: ${list('unknown')}. Revise su nombre con la lista de columnas aceptadas. No se importó nada.`;
    case 'repeated_columns':
      return `El encabezado nombra dos veces la misma columna (en inglés y en español, por ejemplo): ${list('repeated')}. No se importó nada.`;
    case 'missing_columns':
      return 'El encabezado necesita una columna de nombre y una de teléfono o de correo. No se importó nada.';
    case 'consent_proof_missing':
      return 'Hay filas que dicen que la persona autoriza, pero falta la prueba: escriba el texto que aceptaron y cómo se recogió. No se importó nada.';
    case 'contact_created_meanwhile':
      return 'Alguien registró a una de estas personas mientras se leía el archivo. Envíelo de nuevo. No se importó nada.';
    default:
      return csvFileProblem(code, problem);
  }
}
