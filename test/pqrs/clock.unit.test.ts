/**
 * The legal clock against dates worked out by hand on a calendar, for Colombia in 2026 and 2027.
 * Each case lists the business days it counts in a comment, so a reader can check it without code.
 */
import { addBusinessDays, businessDaysBetween, holidaysOf, isBusinessDay, weekdayOf } from '../../src/kernel/business-days';
import { clockState, deadlineFor, dueSoonHorizon, endOfLocalDay, extensionLimit, latestExtension, termFor, type ClockSettings } from '../../src/modules/pqrs/pqrs.clock';
import { detectFileType, DOCX_TYPE, isExecutable, zipEntryNames } from '../../src/kernel/file-store';
import { loadConfig } from '../../src/config';
import { ASSIGNABLE_ROLES, pqrsPolicy } from '../../src/modules/pqrs/pqrs.policy';
import { allowedRoles } from '../helpers/policy';

const CO = 'CO';
const clock: ClockSettings = { timeZone: 'America/Bogota', holidayCountry: CO };
/** An instant at a Bogotá wall-clock time (UTC−5 all year: Colombia has no daylight saving). */
const bogota = (day: string, time = '10:00') => new Date(`${day}T${time}:00-05:00`);

describe('Colombian public holidays on weekdays (Ley 51 de 1983 with its Monday moves, Easter-based ones)', () => {
  const weekdays = (year: number) => [...holidaysOf(CO, year)].filter((day) => weekdayOf(day) !== 0 && weekdayOf(day) !== 6).sort();

  it('2026 (Easter Sunday 5 April)', () => {
    expect(weekdays(2026)).toEqual([
      '2026-01-01', // Año Nuevo (Thu)
      '2026-01-12', // Reyes Magos: Tue 6 Jan → Monday 12
      '2026-03-23', // San José: Thu 19 Mar → Monday 23
      '2026-04-02', // Jueves Santo (Easter − 3)
      '2026-04-03', // Viernes Santo (Easter − 2)
      '2026-05-01', // Día del Trabajo (Fri)
      '2026-05-18', // Ascensión: Easter + 39 = Thu 14 May → Monday 18
      '2026-06-08', // Corpus Christi: Easter + 60 = Thu 4 Jun → Monday 8
      '2026-06-15', // Sagrado Corazón: Easter + 68 = Fri 12 Jun → Monday 15
      '2026-06-29', // San Pedro y San Pablo: already a Monday
      '2026-07-13', // Virgen de Chiquinquirá (Ley 2578 de 2026): Thu 9 Jul → Monday 13
      '2026-07-20', // Independencia (Mon)
      '2026-08-07', // Batalla de Boyacá (Fri)
      '2026-08-17', // Asunción: Sat 15 Aug → Monday 17
      '2026-10-12', // Día de la Raza: already a Monday
      '2026-11-02', // Todos los Santos: Sun 1 Nov → Monday 2
      '2026-11-16', // Independencia de Cartagena: Wed 11 Nov → Monday 16
      '2026-12-08', // Inmaculada Concepción (Tue)
      '2026-12-25', // Navidad (Fri)
    ]);
  });

  it('2027 (Easter Sunday 28 March)', () => {
    expect(weekdays(2027)).toEqual([
      '2027-01-01', // Año Nuevo (Fri)
      '2027-01-11', // Reyes Magos: Wed 6 Jan → Monday 11
      '2027-03-22', // San José: Fri 19 Mar → Monday 22
      '2027-03-25', // Jueves Santo
      '2027-03-26', // Viernes Santo
      '2027-05-10', // Ascensión: Easter + 39 = Thu 6 May → Monday 10 (1 May is a Saturday: no weekday holiday)
      '2027-05-31', // Corpus Christi: Easter + 60 = Thu 27 May → Monday 31
      '2027-06-07', // Sagrado Corazón: Easter + 68 = Fri 4 Jun → Monday 7
      '2027-07-05', // San Pedro y San Pablo: Tue 29 Jun → Monday 5 Jul
      '2027-07-12', // Virgen de Chiquinquirá: Fri 9 Jul → Monday 12
      '2027-07-20', // Independencia (Tue)
      '2027-08-16', // Asunción: Sun 15 Aug → Monday 16 (7 Aug is a Saturday)
      '2027-10-18', // Día de la Raza: Tue 12 Oct → Monday 18
      '2027-11-01', // Todos los Santos (Mon)
      '2027-11-15', // Independencia de Cartagena: Thu 11 Nov → Monday 15
      '2027-12-08', // Inmaculada Concepción (Wed)
    ]);
  });

  it('a moved holiday’s own date is a business day, the Monday it moved to is not', () => {
    expect(isBusinessDay('2027-06-29', CO)).toBe(true); // San Pedro's date, moved to 5 July
    expect(isBusinessDay('2027-07-05', CO)).toBe(false);
    expect(isBusinessDay('2026-01-06', CO)).toBe(true);
    expect(isBusinessDay('2026-01-12', CO)).toBe(false);
    expect(isBusinessDay('2026-04-04', CO)).toBe(false); // a Saturday
  });
});

describe('deadlines (Ley 1755 de 2015, art. 14): day 1 is the business day after filing', () => {
  const due = (day: string, type: Parameters<typeof termFor>[0], time?: string) => deadlineFor(bogota(day, time), type, clock).dueDate;

  it('gives 15 business days in general, 10 for information and documents, 30 for consultations', () => {
    expect([termFor('peticion'), termFor('queja'), termFor('reclamo'), termFor('sugerencia'), termFor('denuncia')]).toEqual([15, 15, 15, 15, 15]);
    expect(termFor('informacion')).toBe(10);
    expect(termFor('consulta')).toBe(30);
  });

  it('skips Holy Week 2026', () => {
    // Filed Mon 30 Mar. 31:1, 1 Apr:2, (2, 3 Jueves and Viernes Santo), 6:3, 7:4, 8:5, 9:6, 10:7, 13:8, 14:9, 15:10, 16:11, 17:12, 20:13, 21:14, 22:15.
    expect(due('2026-03-30', 'peticion')).toBe('2026-04-22');
  });

  it('starts on the next business day when filed on a Saturday before the Ascension Monday', () => {
    // Filed Sat 16 May 2026. (17 Sun, 18 Ascensión) 19:1, 20:2, 21:3, 22:4, 25:5, 26:6, 27:7, 28:8, 29:9, 1 Jun:10.
    expect(due('2026-05-16', 'informacion')).toBe('2026-06-01');
  });

  it('skips Corpus Christi, Sagrado Corazón and San Pedro 2026', () => {
    // Filed Fri 5 Jun. (8 Corpus) 9:1, 10:2, 11:3, 12:4, (15 Sagrado Corazón) 16:5 … 26:13, (29 San Pedro) 30:14, 1 Jul:15.
    expect(due('2026-06-05', 'peticion')).toBe('2026-07-01');
  });

  it('counts a consultation across the new year', () => {
    // Filed Tue 1 Dec 2026. 2:1, 3:2, 4:3, 7:4, (8 Inmaculada) 9:5 … 24:16, (25 Navidad) 28:17, 29:18, 30:19, 31:20,
    // (1 Jan Año Nuevo) 4:21, 5:22, 6:23 (Reyes moved away), 7:24, 8:25, (11 Reyes) 12:26, 13:27, 14:28, 15:29, 18:30.
    expect(due('2026-12-01', 'consulta')).toBe('2027-01-18');
  });

  it('skips San José and Holy Week 2027', () => {
    // Filed Fri 19 Mar 2027 (San José moved to Monday 22). (22) 23:1, 24:2, (25, 26) 29:3, 30:4, 31:5, 1 Apr:6, 2:7, 5:8 … 14:15.
    expect(due('2027-03-19', 'peticion')).toBe('2027-04-14');
  });

  it('skips the Ascension, Corpus Christi and Sagrado Corazón Mondays of 2027', () => {
    // Filed Fri 7 May. (10 Ascensión) 11:1 … 14:4, 17:5 … 21:9, 24:10.
    expect(due('2027-05-07', 'informacion')).toBe('2027-05-24');
    // Filed Fri 28 May. (31 Corpus) 1 Jun:1, 2:2, 3:3, 4:4, (7 Sagrado Corazón) 8:5 … 11:8, 14:9, 15:10.
    expect(due('2027-05-28', 'informacion')).toBe('2027-06-15');
  });

  it('follows the Emiliani moves of July and October 2027', () => {
    // Filed Mon 28 Jun. 29 (San Pedro moved):1, 30:2, 1 Jul:3, 2:4, (5 San Pedro) 6:5, 7:6, 8:7, 9 (Chiquinquirá moved):8,
    // (12 Chiquinquirá) 13:9, 14:10, 15:11, 16:12, 19:13, (20 Independencia) 21:14, 22:15.
    expect(due('2027-06-28', 'peticion')).toBe('2027-07-22');
    // Filed Fri 8 Oct. 11:1, 12 (Raza moved):2, 13:3, 14:4, 15:5, (18 Día de la Raza) 19:6 … 22:9, 25:10.
    expect(due('2027-10-08', 'informacion')).toBe('2027-10-25');
  });

  it('uses the local day in Bogotá, not the UTC one', () => {
    // 23:30 on Thu 16 Apr 2026 in Bogotá is already Fri 17 Apr in UTC: day 1 is Friday 17, not Monday 20.
    // 17:1, 20:2 … 24:6, 27:7 … 30:10, (1 May) 4:11 … 8:15.
    expect(due('2026-04-16', 'peticion', '23:30')).toBe('2026-05-08');
  });

  it('ends at local midnight of the due day', () => {
    expect(deadlineFor(bogota('2026-03-30'), 'peticion', clock).dueAt.toISOString()).toBe('2026-04-23T04:59:59.999Z');
    expect(endOfLocalDay('2027-01-18', 'America/Bogota').toISOString()).toBe('2027-01-19T04:59:59.999Z');
  });
});

describe('business days left, overdue, due soon', () => {
  const request = (status: 'received' | 'answered' | 'closed' = 'received', answeredAt: Date | null = null, closedAt: Date | null = null) => ({
    status,
    dueDate: '2026-04-22',
    dueAt: endOfLocalDay('2026-04-22', 'America/Bogota'),
    answeredAt,
    closedAt,
  });

  it('counts the business days after today up to the due day, due soon from three left', () => {
    expect(clockState(request(), bogota('2026-04-01'), clock)).toEqual({ businessDaysLeft: 13, overdue: false, dueSoon: false, dueState: 'on_time' }); // 6–10, 13–17, 20–22 Apr
    expect(clockState(request(), bogota('2026-04-16'), clock)).toEqual({ businessDaysLeft: 4, overdue: false, dueSoon: false, dueState: 'on_time' }); // 17, 20, 21, 22
    expect(clockState(request(), bogota('2026-04-17'), clock)).toEqual({ businessDaysLeft: 3, overdue: false, dueSoon: true, dueState: 'due_soon' }); // 20, 21, 22
    // Saturday and Sunday count as the Friday before: the same three days left.
    expect(clockState(request(), bogota('2026-04-19'), clock)).toEqual({ businessDaysLeft: 3, overdue: false, dueSoon: true, dueState: 'due_soon' });
    expect(clockState(request(), bogota('2026-04-20'), clock)).toEqual({ businessDaysLeft: 2, overdue: false, dueSoon: true, dueState: 'due_soon' });
    expect(clockState(request(), bogota('2026-04-22', '23:59'), clock)).toEqual({ businessDaysLeft: 0, overdue: false, dueSoon: true, dueState: 'due_soon' });
    expect(dueSoonHorizon('2026-04-17', clock)).toBe('2026-04-22');
    expect(dueSoonHorizon('2026-04-16', clock)).toBe('2026-04-21');
  });

  it('turns overdue at local midnight and counts the business days late', () => {
    expect(clockState(request(), bogota('2026-04-23', '00:00'), clock)).toEqual({ businessDaysLeft: -1, overdue: true, dueSoon: false, dueState: 'overdue' });
    expect(clockState(request(), bogota('2026-04-27'), clock)).toEqual({ businessDaysLeft: -3, overdue: true, dueSoon: false, dueState: 'overdue' }); // 23, 24, 27
  });

  it('stops at the answer, or at closing without one', () => {
    expect(clockState(request('answered', bogota('2026-04-21')), bogota('2026-05-20'), clock)).toEqual({
      businessDaysLeft: 1,
      overdue: false,
      dueSoon: false,
      dueState: 'answered',
    });
    expect(clockState(request('closed', bogota('2026-04-27'), bogota('2026-04-28')), bogota('2026-05-20'), clock)).toMatchObject({
      businessDaysLeft: -3,
      overdue: false,
      dueState: 'answered',
    });
    expect(clockState(request('closed', null, bogota('2026-04-20')), bogota('2026-05-20'), clock)).toEqual({
      businessDaysLeft: 2,
      overdue: false,
      dueSoon: false,
      dueState: 'closed',
    });
  });

  it('offers the extension limit only while an extension may still be asked for', () => {
    const open = { status: 'received' as const, receivedAt: bogota('2026-03-30'), termDays: 15, dueAt: endOfLocalDay('2026-04-22', 'America/Bogota'), extendedAt: null };
    expect(extensionLimit(open, bogota('2026-04-22', '23:59'), clock)).toBe('2026-05-14');
    expect(extensionLimit(open, bogota('2026-04-23', '00:00'), clock)).toBeNull();
    expect(extensionLimit({ ...open, extendedAt: bogota('2026-04-10') }, bogota('2026-04-20'), clock)).toBeNull();
    expect(extensionLimit({ ...open, status: 'answered' }, bogota('2026-04-20'), clock)).toBeNull();
  });

  it('counts business days between two days either way', () => {
    expect(businessDaysBetween('2026-03-30', '2026-04-22', CO)).toBe(15);
    expect(businessDaysBetween('2026-04-22', '2026-03-30', CO)).toBe(-15);
    expect(addBusinessDays('2026-04-22', -15, CO)).toBe('2026-03-30');
  });
});

describe('the extension limit: twice the original term from the same start', () => {
  it('allows up to 30 business days for a 15-day petition filed on 30 March 2026', () => {
    // From 22 Apr (day 15): 23:16, 24:17, 27:18 … 30:21, (1 May) 4:22 … 8:26, 11:27, 12:28, 13:29, 14:30.
    expect(latestExtension(bogota('2026-03-30'), 15, clock)).toBe('2026-05-14');
  });

  it('allows up to 20 business days for an information request filed on Saturday 16 May 2026', () => {
    // Day 10 was 1 Jun: 2:11, 3:12, 4:13, 5:14, (8 Corpus) 9:15, 10:16, 11:17, 12:18, (15 Sagrado Corazón) 16:19, 17:20.
    expect(latestExtension(bogota('2026-05-16'), 10, clock)).toBe('2026-06-17');
  });
});

describe('file types by their bytes', () => {
  /** A minimal ZIP archive (stored entries, no compression) holding these names. */
  function zip(names: string[]): Buffer {
    const locals: Buffer[] = [];
    const centrals: Buffer[] = [];
    let offset = 0;
    for (const name of names) {
      const nameBytes = Buffer.from(name);
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(nameBytes.length, 26);
      const central = Buffer.alloc(46);
      central.writeUInt32LE(0x02014b50, 0);
      central.writeUInt16LE(nameBytes.length, 28);
      central.writeUInt32LE(offset, 42);
      locals.push(local, nameBytes);
      centrals.push(central, nameBytes);
      offset += 30 + nameBytes.length;
    }
    const directory = Buffer.concat(centrals);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(names.length, 8);
    end.writeUInt16LE(names.length, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(offset, 16);
    return Buffer.concat([...locals, directory, end]);
  }

  it('tells a Word document from any other ZIP archive', () => {
    const docx = zip(['[Content_Types].xml', '_rels/.rels', 'word/document.xml']);
    expect(zipEntryNames(docx)).toEqual(['[Content_Types].xml', '_rels/.rels', 'word/document.xml']);
    expect(detectFileType(docx, [DOCX_TYPE])).toBe(DOCX_TYPE);
    expect(detectFileType(zip(['payload.exe']), [DOCX_TYPE, 'application/pdf'])).toBeUndefined();
    expect(detectFileType(Buffer.from('PK\u0003\u0004 broken'), [DOCX_TYPE])).toBeUndefined();
  });

  it('recognises programs and refuses types not allowed', () => {
    expect(isExecutable(Buffer.from('MZ\u0090\u0000'))).toBe(true);
    expect(isExecutable(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1]))).toBe(true);
    expect(isExecutable(Buffer.from('#!/bin/sh\nrm -rf /'))).toBe(true);
    expect(isExecutable(Buffer.from('%PDF-1.7'))).toBe(false);
    expect(detectFileType(Buffer.from('%PDF-1.7'), ['image/png'])).toBeUndefined();
    expect(detectFileType(Buffer.from('%PDF-1.7'), ['application/pdf'])).toBe('application/pdf');
  });
});

describe('other countries and the configuration', () => {
  it('takes any date-holidays country (a US substitute day), and refuses an unknown one at start-up', () => {
    expect(isBusinessDay('2026-07-03', 'US')).toBe(false); // Independence Day observed on the Friday
    expect(isBusinessDay('2026-07-03', CO)).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(40), HOLIDAY_COUNTRY: 'US-CA' }).holidayCountry).toBe('US-CA');
    expect(loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(40) }).holidayCountry).toBe('CO');
    expect(() => loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(40), HOLIDAY_COUNTRY: 'XX' })).toThrow(/HOLIDAY_COUNTRY/);
    expect(() => loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(40), HOLIDAY_COUNTRY: 'colombia' })).toThrow(/HOLIDAY_COUNTRY/);
  });
});

describe('pqrsPolicy', () => {
  it('lets managers handle and see people, viewers only read and follow', () => {
    expect(allowedRoles(pqrsPolicy, 'handle')).toEqual(['admin', 'manager']);
    expect(allowedRoles(pqrsPolicy, 'readPersonal')).toEqual(['admin', 'manager']);
    expect(allowedRoles(pqrsPolicy, 'read')).toEqual(['admin', 'manager', 'viewer']);
    expect(allowedRoles(pqrsPolicy, 'follow')).toEqual(['admin', 'manager', 'viewer']);
    expect(allowedRoles(pqrsPolicy, 'readTeam')).toEqual(['admin', 'manager', 'viewer']);
    // Requests go to those who may answer them.
    expect([...ASSIGNABLE_ROLES].sort()).toEqual(allowedRoles(pqrsPolicy, 'handle').sort());
  });
});
