/**
 * What the People screens compute without a browser: a CSV read for its preview as the server
 * reads it (delimiter, quotes, line numbers), the import's row messages said in Spanish, and a
 * local day as the instants an API filter takes.
 */
import { readCsv, withCommas } from '../../web/console/app/csv';
import { localDayBound } from '../../web/console/app/format';
import { fileProblem, rowProblems } from '../../web/console/people/importMessages';

describe('reading a CSV for its preview', () => {
  it('numbers rows as the server does: the header is line 1, empty lines are not counted, quoted cells keep their commas and line breaks', () => {
    const table = readCsv('nombre,telefono\r\n"Pérez, Ana",300 123 4567\n\n"Luis ""Lucho""\nRojas", 301 222 3344 \n,\n', 10);
    expect(table).toEqual({
      delimiter: ',',
      header: ['nombre', 'telefono'],
      rows: [
        { line: 2, cells: ['Pérez, Ana', '300 123 4567'] },
        { line: 3, cells: ['Luis "Lucho"\nRojas', '301 222 3344'] },
        { line: 4, cells: ['', ''] },
      ],
      rowCount: 3,
    });
    expect(readCsv('a\n1\n2\n3', 2)).toMatchObject({ rows: [{ line: 2 }, { line: 3 }], rowCount: 3 });
  });

  it('reads what Excel in Spanish writes (semicolons) and sends it with commas, the same rows', () => {
    const excel = 'nombre;telefono;etiquetas\nAna Pérez;300 123 4567;líder, transporte\n\nLuis;"301;222";\n';
    expect(readCsv(excel).delimiter).toBe(';');
    const sent = withCommas(excel);
    expect(sent).toBe('nombre,telefono,etiquetas\nAna Pérez,300 123 4567,"líder, transporte"\nLuis,301;222,\n');
    expect(readCsv(sent).rows).toEqual(readCsv(excel).rows);
    expect(withCommas('a,b\n1,2\n')).toBe('a,b\n1,2\n');
  });
});

describe('the import’s messages in Spanish', () => {
  // The API's wording (src/modules/audience/audience.import.ts), joined as it joins a row's problems.
  it.each([
    ['name: required, at least 2 characters; phone: not a valid phone number', ['Nombre: es obligatorio, con al menos 2 caracteres', 'Teléfono: no es un número válido']],
    [
      'phone or email: give one (a person is found by their phone, else their email)',
      ['Teléfono o correo: escriba uno de los dos (la persona se reconoce por su teléfono o, si no tiene, por su correo)'],
    ],
    ['email: not an email address; documentId: a cédula has 5 to 12 digits', ['Correo: no es una dirección de correo', 'Cédula: debe tener de 5 a 12 dígitos']],
    ['whatsappConsent: write si or no (true/false, 1/0)', ['Autoriza WhatsApp: escriba sí o no']],
    ['neighbourhood: at most 120 characters; interests: at most 50 items', ['Barrio: como máximo 120 caracteres', 'Intereses: como máximo 50 elementos']],
    ['tags: each item has at most 60 characters', ['Etiquetas: cada elemento tiene como máximo 60 caracteres']],
    ['territoryCode: 05001-10 names no territory', ['Código de territorio: ningún territorio tiene el código 05001-10']],
    ['territoryCode: 11 names 2 territories (one per type); use territoryId', ['Código de territorio: 11 corresponde a 2 territorios, uno por tipo (use el id)']],
    ['territoryId: no territory has id 0190a3f1-0000-7000-8000-000000000000', ['Id de territorio: ningún territorio tiene ese id']],
    ['territoryCode: fill territoryId or territoryCode, not both', ['Código de territorio: llene el id o el código del territorio, no los dos']],
    ['email: 2 contacts have this email; add the phone to say which one this is', ['Correo: 2 personas tienen este correo (agregue el teléfono para saber cuál es)']],
    ['the same person as line 7 (by phone or email)', ['Es la misma persona de la línea 7 (por teléfono o correo)']],
    ['documentId: the same cédula as line 3, for another person', ['Cédula: la misma de la línea 3, para otra persona']],
    [
      'documentId: the contact matched by phone or email has another cédula; an import does not change a cédula',
      ['Cédula: la persona que coincide por teléfono o correo tiene otra cédula, y una importación no cambia cédulas'],
    ],
    ['whatsappConsent: yes, but the person has no phone; no consent recorded', ['Autoriza WhatsApp: dice sí, pero la persona no tiene teléfono (no se registró autorización)']],
    [
      'emailConsent: the person withdrew from email on 2026-10-12; an import does not re-open it (they must opt in again themselves)',
      ['Autoriza correo: la persona retiró su autorización el 2026-10-12, y una importación no la vuelve a abrir (debe autorizar de nuevo ella misma)'],
    ],
  ])('%s', (message, problems) => {
    expect(rowProblems(message)).toEqual({ problems, contactIds: [] });
  });

  it('names the other holder of a cédula, to link to her', () => {
    const id = '0190a3f1-1234-7000-8000-00000000abcd';
    const message = `documentId: this cédula belongs to another contact (${id}); the two may be one person: merge them (POST /api/audience/contacts/{id}/merge) or correct the cédula; name: at most 160 characters`;
    expect(rowProblems(message)).toEqual({
      problems: ['Cédula: ya pertenece a otra persona (pueden ser la misma: fusiónelas o corrija la cédula)', 'Nombre: como máximo 160 caracteres'],
      contactIds: [id],
    });
  });

  it('keeps a message it does not know, rather than losing it', () => {
    expect(rowProblems('something new: went wrong').problems).toEqual(['Something new: went wrong']);
  });

  it('says why a whole file was refused', () => {
    expect(fileProblem('unknown_columns', { unknown: ['autoriza_whatsap'] })).toMatch(/autoriza_whatsap.*No se importó nada/);
    expect(fileProblem('too_many_rows', { maxRows: 100_000 })).toMatch(/100\.000 filas/);
    expect(fileProblem('not_a_file_problem', {})).toBeNull();
  });
});

describe('a local day as a filter', () => {
  it('starts and ends in Bogotá, with its offset', () => {
    expect(localDayBound('2026-11-28', 'start')).toBe('2026-11-28T00:00:00.000-05:00');
    expect(localDayBound('2026-11-28', 'end')).toBe('2026-11-28T23:59:59.999-05:00');
    expect(localDayBound('2026-11-28', 'start', 'UTC')).toBe('2026-11-28T00:00:00.000+00:00');
    expect(localDayBound('28/11/2026', 'start')).toBeUndefined();
  });
});
