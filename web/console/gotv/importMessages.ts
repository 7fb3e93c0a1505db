import { csvFileProblem, translateProblems, type ProblemPatterns } from '../app/importMessages';

/** The columns of the stations' and voters' files, in Spanish, as the rows' problems name them. */
const FIELD_LABELS: Record<string, string> = {
  name: 'nombre',
  documentId: 'cédula',
  phone: 'teléfono',
  pollingStationCode: 'código del puesto',
  tableNumber: 'mesa',
  priority: 'prioridad',
  code: 'código',
  address: 'dirección',
  territoryId: 'id de territorio',
  territoryCode: 'código de territorio',
  lat: 'latitud',
  lng: 'longitud',
  tables: 'mesas',
  registeredVoters: 'potencial electoral',
  previousTurnout: 'votantes en la elección anterior',
};

/** The stations' and voters' import problems in Spanish (see `translateProblems`). */
const PROBLEMS: ProblemPatterns = [
  [/documentId: a cédula has 5 to 12 digits/g, () => 'cédula: debe tener de 5 a 12 dígitos'],
  [/documentId: repeated earlier in this file/g, () => 'cédula: ya está en una línea anterior del archivo'],
  [
    /documentId: this person asked for their data to be erased[^;]*/g,
    () => 'cédula: esta persona pidió suprimir sus datos (Ley 1581); una lista no la agrega de nuevo, solo ella misma',
  ],
  [/pollingStationCode: no station has code (.+?)(?=;|$)/g, (code) => `código del puesto: ningún puesto tiene el código ${code}`],
  [/tableNumber: the station has (\d+) tables/g, (tables) => `mesa: el puesto tiene ${tables} mesas`],
  [/phone: not a valid phone number/g, () => 'teléfono: no es un número válido'],
  [/name: contains a NUL character/g, () => 'nombre: tiene un carácter inválido'],
  [/priority: Invalid option: expected one of [^;]*/g, () => 'prioridad: debe ser low, normal o high (o vacía)'],
  [/code: (.+?) appears earlier in this file/g, (code) => `código: ${code} ya está en una línea anterior del archivo`],
  [/code: the station code is required/g, () => 'código: es obligatorio'],
  [
    /no station has code (.+?), and registering it needs ([\w, ]+)/g,
    (code, fields) =>
      `ningún puesto tiene el código ${code}, y para registrarlo faltan: ${fields
        .split(', ')
        .map((field) => FIELD_LABELS[field] ?? field)
        .join(', ')}`,
  ],
  [
    /previousTurnout \((\d+)\) cannot exceed registeredVoters \((\d+)\)/g,
    (previous, registered) => `votantes en la elección anterior: ${previous} supera el potencial electoral (${registered})`,
  ],
  [/territoryCode: fill territoryId or territoryCode, not both/g, () => 'código de territorio: llene el id o el código del territorio, no los dos'],
  [/territoryCode: (.+?) names no territory/g, (code) => `código de territorio: ningún territorio tiene el código ${code}`],
  [
    /territoryCode: (.+?) names (\d+) territories \(one per type\); use territoryId/g,
    (code, count) => `código de territorio: ${code} corresponde a ${count} territorios (use el id)`,
  ],
  [/territoryId: no territory has id \S+/g, () => 'id de territorio: ningún territorio tiene ese id'],
  [/(\w+): a number, with a dot for decimals/g, (field) => `${FIELD_LABELS[field] ?? field}: un número, con punto para los decimales`],
  [/(\w+): a whole number/g, (field) => `${FIELD_LABELS[field] ?? field}: un número entero`],
];

/** A row's message from the stations' or voters' import, in Spanish, one problem per item. */
export const gotvRowProblems = (message: string) => ({ problems: translateProblems(message, PROBLEMS, FIELD_LABELS) });

/** What a file refused as a whole says. */
export function gotvFileProblem(code: string | undefined, problem: Record<string, unknown>): string | null {
  switch (code) {
    case 'missing_columns':
      return 'El encabezado no tiene la columna code (o, en un archivo de puestos de la Registraduría, departamento, municipio y puesto). No se importó nada.';
    case 'station_code_taken':
      return 'Alguien registró uno de estos códigos mientras se leía el archivo. Envíelo de nuevo. No se importó nada.';
    default:
      return csvFileProblem(code, problem);
  }
}
