/**
 * The things tests make most often, made the way the campaign makes them: through the API (a
 * territory, a polling station, a voter, a volunteer, an agenda event, a user) or through the
 * owning module's repository (a contact with the consent it gave). Each has defaults that pass
 * the module's rules and takes overrides; identifiers that must be unique (phones, emails,
 * cédulas, station codes) are made unique per call. A test that needs a state no rule allows
 * writes it itself and says why.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Role } from '../../src/kernel/auth/roles';
import { addDays, localClock } from '../../src/kernel/calendar';
import { formatTimeOfDay } from '../../src/modules/gotv/projection/curve';
import { ensureConsentText, registerContact } from '../../src/modules/audience';
import type { createEventBody } from '../../src/modules/agenda/agenda.schemas';
import type { createStationBody, createVoterBody } from '../../src/modules/gotv/gotv.schemas';
import type { createTerritoryBody } from '../../src/modules/territories/territories.schemas';
import type { createVolunteerBody } from '../../src/modules/volunteers/volunteers.schemas';
import type { TestApp } from './app';
import { createUser, type TestUser } from './users';

type Http = Pick<TestApp, 'http'>;
type Body = Record<string, unknown> & { id: string };

let sequence = 0;
/** Digits no other call in this test file gets (a worker runs one file at a time). */
function unique(digits: number): string {
  sequence += 1;
  const random = String(parseInt(randomBytes(4).toString('hex'), 16) % 10 ** Math.max(0, digits - 3)).padStart(Math.max(0, digits - 3), '0');
  return `${String(sequence % 1000).padStart(3, '0')}${random}`.slice(0, digits);
}

/** A Colombian mobile number, `+57315…`, unique in the file. */
export function uniquePhone(): string {
  return `+57315${unique(7)}`;
}

/** An address at example.org, unique in the file. */
export function uniqueEmail(local = 'persona'): string {
  return `${local}-${unique(8)}@example.org`;
}

/** A cédula (8 digits), unique in the file. */
export function uniqueDocumentId(): string {
  return `1${unique(7)}`;
}

async function created(request: PromiseLike<{ status: number; body: unknown }>, what: string): Promise<Body> {
  const response = await request;
  if (response.status !== 201) throw new Error(`${what} not created: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as Body;
}

/** A user with the role, created by an admin (the only way to grant one). */
export function user(app: TestApp, admin: TestUser, role: Role, name?: string): Promise<TestUser> {
  return createUser(app, admin, role, name);
}

export interface ContactOptions {
  name?: string;
  /** Defaults to a unique mobile number unless an email is given; `null` for none. */
  phone?: string | null;
  email?: string | null;
  documentId?: string | null;
  territoryId?: string | null;
  /** The person agreed to WhatsApp messages (opens the channel only with a phone). */
  whatsapp?: boolean;
  /** The person agreed to emails (opens the channel only with an email). */
  emailConsent?: boolean;
}

export interface FactoryContact {
  id: string;
  name: string;
  phone: string | null;
  email: string | null;
}

/** The text a test person agrees to; recorded once as audience's consent texts are. */
const CONSENT_TEXT = 'Acepto recibir mensajes de la campaña por WhatsApp y correo electrónico (persona de prueba).';

/**
 * A contact registered through audience's `registerContact`, with a consent record (and its proof)
 * for the channels it agreed to: what a volunteer's sign-up or a QR form leaves behind.
 */
export async function contact(app: Pick<TestApp, 'runtime'>, options: ContactOptions = {}): Promise<FactoryContact> {
  const phone = options.phone === undefined ? (options.email ? null : uniquePhone()) : options.phone;
  const email = options.email ?? null;
  const person = { name: options.name ?? 'Ana María Pérez', phone, email, documentId: options.documentId ?? null, territoryId: options.territoryId ?? null };
  const consenting = Boolean(options.whatsapp || options.emailConsent);
  const { id } = await app.runtime.deps.db.transaction(async (tx) =>
    registerContact(
      tx,
      person,
      { kind: 'test_factory', refId: randomUUID() },
      consenting
        ? {
            proof: { textId: await ensureConsentText(tx, CONSENT_TEXT, null), source: 'test_factory', sourceRef: null, ipHash: null, userAgent: null },
            whatsappOptIn: Boolean(options.whatsapp),
            emailOptIn: Boolean(options.emailConsent),
          }
        : null,
    ),
  );
  return { id, name: person.name, phone, email };
}

/** The person's data erased at their request, through DELETE /api/audience/contacts/:id (a manager's act). */
export async function erase(app: Http, by: TestUser, contactId: string): Promise<void> {
  const response = await app.http.delete(`/api/audience/contacts/${contactId}`).set(by.auth);
  if (response.status >= 300) throw new Error(`contact not erased: ${response.status} ${JSON.stringify(response.body)}`);
}

/** A withdrawal of consent the person asked staff to record, through POST /api/audience/contacts/:id/withdrawals. */
export async function withdraw(app: Http, by: TestUser, contactId: string, channel: 'whatsapp' | 'email', note = 'Pidió por teléfono no recibir más mensajes.'): Promise<void> {
  const response = await app.http.post(`/api/audience/contacts/${contactId}/withdrawals`).set(by.auth).send({ channel, note });
  if (response.status >= 300) throw new Error(`withdrawal not recorded: ${response.status} ${JSON.stringify(response.body)}`);
}

export type TerritoryOverrides = Partial<z.input<typeof createTerritoryBody>>;

/** A territory (a commune named Kennedy unless told otherwise), through POST /api/territories. */
export function territory(app: Http, by: TestUser, overrides: TerritoryOverrides = {}): Promise<Body> {
  return created(
    app.http
      .post('/api/territories')
      .set(by.auth)
      .send({ name: 'Kennedy', type: 'commune', ...overrides }),
    'territory',
  );
}

export type StationOverrides = Partial<z.input<typeof createStationBody>>;

/** A polling station body with a unique code, in Bogotá, with 5 tables and 1,000 voters. */
export function stationBody(overrides: StationOverrides = {}): z.input<typeof createStationBody> {
  return { code: `11-001-${unique(6)}`, name: 'Colegio Distrital Kennedy', lat: 4.6, lng: -74.1, tables: 5, registeredVoters: 1000, ...overrides };
}

/** A polling station, through POST /api/gotv/polling-stations. */
export function station(app: Http, by: TestUser, overrides: StationOverrides = {}): Promise<Body> {
  return created(app.http.post('/api/gotv/polling-stations').set(by.auth).send(stationBody(overrides)), 'polling station');
}

export type VoterOverrides = Partial<z.input<typeof createVoterBody>> & Pick<z.input<typeof createVoterBody>, 'pollingStationId'>;

/** A voter at the given station with a unique cédula, through POST /api/gotv/voters. */
export function voter(app: Http, by: TestUser, overrides: VoterOverrides): Promise<Body> {
  return created(
    app.http
      .post('/api/gotv/voters')
      .set(by.auth)
      .send({ name: 'Votante de Prueba', documentId: uniqueDocumentId(), ...overrides }),
    'voter',
  );
}

export type VolunteerOverrides = Partial<z.input<typeof createVolunteerBody>>;

/** A volunteer (a new person with a unique phone unless `contactId` names one), through POST /api/volunteers. */
export function volunteer(app: Http, by: TestUser, overrides: VolunteerOverrides = {}): Promise<Body> {
  const person = overrides.contactId ? {} : { name: 'Voluntaria de Prueba', ...(overrides.email || overrides.phone ? {} : { phone: uniquePhone() }) };
  return created(
    app.http
      .post('/api/volunteers')
      .set(by.auth)
      .send({ ...person, ...overrides }),
    'volunteer',
  );
}

export type EventOverrides = Partial<z.input<typeof createEventBody>>;

const hour = 3_600_000;

/** An agenda event body starting `hoursFromNow` ahead and lasting `lengthHours`. */
export function eventBody(overrides: EventOverrides = {}, hoursFromNow = 48, lengthHours = 2): z.input<typeof createEventBody> {
  const start = new Date(Date.now() + hoursFromNow * hour);
  return {
    title: 'Encuentro con líderes de Kennedy',
    type: 'meeting',
    startsAt: start.toISOString(),
    endsAt: new Date(start.getTime() + lengthHours * hour).toISOString(),
    address: 'Salón comunal Timiza',
    ...overrides,
  } as z.input<typeof createEventBody>;
}

/** An agenda event, through POST /api/agenda/events. */
export function agendaEvent(app: Http, by: TestUser, overrides: EventOverrides = {}, hoursFromNow = 48, lengthHours = 2): Promise<Body> {
  return created(
    app.http
      .post('/api/agenda/events')
      .set(by.auth)
      .send(eventBody(overrides, hoursFromNow, lengthHours)),
    'agenda event',
  );
}

/**
 * GOTV settings (for PUT /api/gotv/settings) with the polls open now, for over an hour already (the
 * projection skips counts of the first half hour) and for `closingInMinutes` more, whatever the hour
 * in Bogotá: in the first hour after midnight, election day is yesterday, open all day, and today
 * follows it as a second polling day.
 */
export function openPollsSettings(closingInMinutes = 90, now = new Date()) {
  const { date, minutes } = localClock(now, 'America/Bogota');
  const closesAt = formatTimeOfDay(Math.min(23 * 60 + 59, Math.floor(minutes) + closingInMinutes));
  if (minutes >= 60) return { electionDate: date, opensAt: '00:00', closesAt, followingDays: [] };
  return { electionDate: addDays(date, -1), opensAt: '00:00', closesAt: '23:59', followingDays: [{ date, opensAt: '00:00', closesAt }] };
}
