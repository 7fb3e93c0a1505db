/**
 * `npm run demo`: fills a running Comando with an election-day campaign and plays the day, through
 * the public API only, as staff and phones would. A Medellín-like city (16 comunas with outlines
 * drawn as a grid: real boundaries would need a download) for the campaign's people; election day
 * at Cartagena's 120 real puestos (the Registraduría's files in fixtures/co-puestos: coordinates,
 * registered voters, mesas), 30,000 confirmed voters, 30 brigades each with a member and 4
 * stations, a poster campaign with its leads. Then
 * the campaign's ordinary week, so the console's People, WhatsApp and PQRS screens are full: a
 * supporters' spreadsheet imported, people writing on WhatsApp (through the signed webhook, as
 * Meta delivers them), requests filed at the PQRS desk and answered. Then the day is played
 * compressed (`--speed 30`: 8 hours in 16 minutes): stations open, brigade members report voters
 * and counts on the learned curve, incidents happen, stations close.
 *
 *   npm run demo -- [--port 3100] [--speed 30] [--no-play] [--url http://host:port]
 *
 * The demo never touches a campaign's data: it starts a Comando of its own (the built server, its
 * embedded PostgreSQL in `data/demo`, no Redis, the WhatsApp simulator, a webhook secret made for
 * it; nothing from the environment or `.env`, so no real provider is ever reached), filled afresh
 * on each run, and leaves it running for the screens until Ctrl-C. `--url` points it at a Comando
 * started otherwise instead, which it refuses before writing anything unless that one has no
 * account yet (a fresh install, made for the demo); WHATSAPP_APP_SECRET must then be the server's.
 * It prints the logins it created.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    port: { type: 'string', default: '3100' },
    speed: { type: 'string', default: '30' },
    'no-play': { type: 'boolean', default: false },
  },
});
const ROOT = path.resolve(__dirname, '..');
/** The demo's own Comando keeps everything here; the marker says the folder is the demo's to empty. */
const DEMO_DATA = path.join(ROOT, 'data', 'demo');
const DEMO_MARKER = path.join(DEMO_DATA, '.comando-demo');
let BASE = '';
const SPEED = Number(args.speed);
const PASSWORD = 'demo-comando-2026';
const RUN = Date.now().toString(36).slice(-5);
const TIME_ZONE = 'America/Bogota';

const COMUNAS = [
  'Popular',
  'Santa Cruz',
  'Manrique',
  'Aranjuez',
  'Castilla',
  'Doce de Octubre',
  'Robledo',
  'Villa Hermosa',
  'Buenos Aires',
  'La Candelaria',
  'Laureles-Estadio',
  'La América',
  'San Javier',
  'El Poblado',
  'Guayabal',
  'Belén',
];
const FIRST = [
  'Ana',
  'Luis',
  'María',
  'Carlos',
  'Paula',
  'Andrés',
  'Camila',
  'Jorge',
  'Diana',
  'Julián',
  'Valentina',
  'Sebastián',
  'Laura',
  'Felipe',
  'Natalia',
  'Juan',
  'Sara',
  'Diego',
  'Luz',
  'Mateo',
  'Gloria',
  'Santiago',
  'Marta',
  'Alejandro',
];
const LAST = [
  'Gómez',
  'Rodríguez',
  'Martínez',
  'López',
  'García',
  'Pérez',
  'Restrepo',
  'Zapata',
  'Ospina',
  'Cardona',
  'Álvarez',
  'Giraldo',
  'Henao',
  'Vélez',
  'Arango',
  'Muñoz',
  'Ríos',
  'Castaño',
  'Quintero',
  'Mejía',
];
const INCIDENTS = ['material_missing', 'witness_denied', 'vote_buying', 'other', 'violence'] as const;
const DEFAULT_CURVE = [0, 0.08, 0.19, 0.32, 0.46, 0.58, 0.71, 0.85, 1];

const pick = <T>(list: readonly T[]): T => list[randomInt(list.length)]!;
/** A Colombian mobile number on a prefix in use (the API checks numbers against the numbering plan). */
const MOBILE_PREFIXES = ['300', '301', '302', '304', '305', '310', '311', '312', '313', '314', '315', '316', '317', '318', '319', '320', '321', '322', '323', '350', '351'];
const mobile = () => `${pick(MOBILE_PREFIXES)}${randomInt(1_000_000, 10_000_000)}`;
const personName = () => `${pick(FIRST)} ${pick(LAST)} ${pick(LAST)}`;
const log = (message: string) => process.stdout.write(`${message}\n`);

interface Session {
  id: string;
  email: string;
  name: string;
  token: string;
  role: string;
}

async function call<T>(
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
  contentType = 'application/json',
  timeoutMs = 120_000,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${BASE}${path}`, {
    method,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'Content-Type': contentType } : {}) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    // Generous (the import takes a while), but bounded: an answer that never comes must not stop the day.
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

async function must<T>(method: string, path: string, token: string | undefined, body?: unknown, contentType?: string): Promise<T> {
  const answer = await call<T>(method, path, token, body, contentType);
  if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Runs `work` over `items` with a few requests in flight, as a handful of phones would. */
async function inParallel<T, R>(items: readonly T[], work: (item: T, index: number) => Promise<R>, width = 8): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!, index);
      }
    }),
  );
  return results;
}

/**
 * The demo's Comando: the built server on its own embedded database in `data/demo` (emptied first,
 * when the demo made it), given only what the demo chooses — none of the environment or `.env`
 * (run from that folder, where no `.env` is), so a campaign's database, Redis or provider
 * credentials can never be reached. Resolves with its address once it answers.
 */
async function startOwnComando(port: number): Promise<{ url: string; child: ChildProcess }> {
  const entry = path.join(ROOT, 'dist', 'src', 'main.js');
  if (!existsSync(entry)) throw new Error('The demo starts the built server: run `npm run build` first (`npm start` does it too).');
  if (existsSync(DEMO_DATA)) {
    if (!existsSync(DEMO_MARKER)) throw new Error(`${DEMO_DATA} exists and is not the demo's: move it away, the demo will not empty it.`);
    rmSync(DEMO_DATA, { recursive: true, force: true });
  }
  mkdirSync(DEMO_DATA, { recursive: true });
  writeFileSync(DEMO_MARKER, 'Made by `npm run demo`: emptied and filled again on each run.\n');
  process.env.WHATSAPP_APP_SECRET = randomBytes(24).toString('hex');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? DEMO_DATA,
    NODE_ENV: 'production',
    PORT: String(port),
    DATA_DIR: DEMO_DATA,
    EMBEDDED_PG_PORT: String(port + 51_000 > 65_535 ? 54_339 : port + 51_000),
    PUBLIC_BASE_URL: `http://localhost:${port}`,
    WHATSAPP_APP_SECRET: process.env.WHATSAPP_APP_SECRET,
    LOG_LEVEL: 'warn',
  };
  const child = spawn(process.execPath, [entry], { cwd: DEMO_DATA, env, stdio: ['ignore', 'inherit', 'inherit'] });
  const url = `http://localhost:${port}`;
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`the demo's Comando stopped (exit ${code}) before it answered`))));
  const ready = (async () => {
    for (let waited = 0; waited < 120_000; waited += 500) {
      const answer = await fetch(`${url}/readyz`).catch(() => undefined);
      if (answer?.ok) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error(`the demo's Comando did not answer at ${url} within two minutes`);
  })();
  await Promise.race([ready, exited]);
  return { url, child };
}

async function adminSession(): Promise<Session> {
  // Only a Comando without accounts is the demo's to fill: one with accounts is a campaign's.
  const setup = await must<{ firstAccountPending: boolean }>('GET', '/api/auth/setup', undefined);
  if (!setup.firstAccountPending) {
    throw new Error(
      `The Comando at ${BASE} already has accounts: the demo never writes into a campaign's data. Run \`npm run demo\` without --url; it starts a Comando of its own.`,
    );
  }
  const first = `admin-${RUN}@demo.comando.co`;
  const answer = await must<{ token: string; user: { id: string; role: string } }>('POST', '/api/auth/register', undefined, {
    email: first,
    password: PASSWORD,
    name: 'Administración',
  });
  return { id: answer.user.id, email: first, name: 'Administración', token: answer.token, role: 'admin' };
}

async function createUser(admin: Session, role: string, local: string, name: string): Promise<Session> {
  const email = `${local}-${RUN}@demo.comando.co`;
  const answer = await must<{ token: string; user: { id: string } }>('POST', '/api/auth/register', admin.token, { email, password: PASSWORD, name, role });
  return { id: answer.user.id, email, name, token: answer.token, role };
}

/**
 * Cartagena's rows of the Registraduría's Bolívar files (fixtures/co-puestos), kept to the puestos
 * both files name: the georeferenced one (comma-separated) and the census (`;`, with its BOM).
 */
function cartagenaPuestos(): { georeferenced: string; census: string } {
  const folder = path.join(__dirname, '..', 'fixtures', 'co-puestos');
  const lines = (file: string) => readFileSync(path.join(folder, file), 'utf8').trimEnd().split(/\r?\n/);
  const [censusHeader, ...censusRows] = lines('DvipolaUltimate_BOLIVAR_censo_mesas.csv');
  const census = censusRows.filter((line) => line.startsWith('BOLIVAR;CARTAGENA;'));
  const named = new Set(census.map((line) => line.split(';')[2]!.trim()));
  const [georefHeader, ...georefRows] = lines('Divipole_Territoriales_2023_georref_BOLIVAR.csv');
  const georeferenced = georefRows.filter((line) => line.startsWith('"BOLIVAR","CARTAGENA",') && named.has(line.split('","')[2]!.trim()));
  const kept = new Set(georeferenced.map((line) => line.split('","')[2]!.trim()));
  return {
    georeferenced: [georefHeader!, ...georeferenced].join('\n'),
    census: [censusHeader!, ...census.filter((line) => kept.has(line.split(';')[2]!.trim()))].join('\n'),
  };
}

/** A comuna's outline: its grid cell with the corners and edges nudged, so the map reads like a city. */
function outline(south: number, west: number, height: number, width: number): number[][][] {
  const jitter = () => (randomInt(-100, 101) / 100) * 0.0025;
  const ring = [
    [west, south],
    [west + width / 2 + jitter(), south + jitter()],
    [west + width, south],
    [west + width + jitter(), south + height / 2 + jitter()],
    [west + width, south + height],
    [west + width / 2 + jitter(), south + height + jitter()],
    [west, south + height],
    [west + jitter(), south + height / 2 + jitter()],
  ].map(([lng, lat]) => [Math.round(lng! * 1e5) / 1e5, Math.round(lat! * 1e5) / 1e5]);
  return [[...ring, ring[0]!]];
}

function localNow(): { date: string; minutes: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: TIME_ZONE,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hour12: false,
    })
      .formatToParts(new Date())
      .map((part) => [part.type, part.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, minutes: (Number(parts.hour) % 24) * 60 + Number(parts.minute) + Number(parts.second) / 60 };
}

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(Math.floor(minutes % 60)).padStart(2, '0')}`;

/** The share of the day's turnout cast by `fraction` of the opening hours (the default curve, linear between hours). */
function curveAt(fraction: number): number {
  if (fraction <= 0) return 0;
  if (fraction >= 1) return 1;
  const x = fraction * 8;
  const i = Math.floor(x);
  return DEFAULT_CURVE[i]! + (DEFAULT_CURVE[i + 1]! - DEFAULT_CURVE[i]!) * (x - i);
}

/** When in the day (a fraction of the opening hours) someone votes: the curve's inverse at a random share. */
function voteMoment(): number {
  const share = Math.random();
  let low = 0;
  let high = 1;
  for (let step = 0; step < 30; step++) {
    const middle = (low + high) / 2;
    if (curveAt(middle) < share) low = middle;
    else high = middle;
  }
  return high;
}

interface StationPlan {
  id: string;
  code: string;
  registered: number;
  finalTurnout: number;
  lastCount: number;
  member: Session;
  voters: { id: string; at: number; reported: boolean }[];
}

/**
 * A WhatsApp and an email campaign to the poster campaign's leads, sent: with no WhatsApp token the
 * simulator stands in (it approves the template and its recipients answer, which the war room's
 * feed shows); with no SMTP_URL the emails are written to the outbox folder.
 */
async function outreach(manager: Session, qrCampaignId: string): Promise<void> {
  const template = await must<{ id: string }>('POST', '/api/whatsapp/templates', manager.token, {
    name: `dia_de_elecciones_${RUN}`,
    language: 'es_CO',
    category: 'MARKETING',
    body: 'Hola {{1}}, hoy elegimos. Tu voto cuenta: si necesitas saber dónde votar, responde a este mensaje.',
    examples: ['Ana'],
  });
  let approved = false;
  for (let tries = 0; tries < 20 && !approved; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const templates = await must<{ data: { id: string; status: string }[] }>('GET', '/api/whatsapp/templates?limit=200', manager.token);
    approved = templates.data.some((candidate) => candidate.id === template.id && candidate.status === 'APPROVED');
  }
  if (approved) {
    const whatsapp = await must<{ id: string; audienceSize: number }>('POST', '/api/whatsapp/campaigns', manager.token, {
      name: `Día E: recordatorio (${RUN})`,
      templateId: template.id,
      variables: ['contact.firstName'],
      segment: { qrCampaignIds: [qrCampaignId] },
    });
    await must('POST', `/api/whatsapp/campaigns/${whatsapp.id}/send`, manager.token);
    log(`  a WhatsApp campaign sent to ${whatsapp.audienceSize} leads`);
  } else log('  the WhatsApp template is still waiting for approval: no WhatsApp campaign sent');

  const newsletter = await must<{ id: string }>('POST', '/api/email-marketing/templates', manager.token, {
    name: `Día E ${RUN}`,
    subject: 'Hoy elegimos',
    html: '<html><body><p>Hola {{contact.firstName}}:</p><p>Hoy es el día. Busca tu puesto y ve temprano.</p><p><a href="https://example.org/puestos">Dónde voto</a></p></body></html>',
  });
  const email = await must<{ id: string; audienceSize: number }>('POST', '/api/email-marketing/campaigns', manager.token, {
    name: `Día E: correo (${RUN})`,
    fromName: 'Campaña Demo',
    fromEmail: 'campana@example.org',
    segment: { qrCampaignIds: [qrCampaignId] },
    variants: [{ name: 'A', subject: 'Hoy elegimos', templateId: newsletter.id }],
  });
  await must('POST', `/api/email-marketing/campaigns/${email.id}/send`, manager.token);
  log(`  an email campaign sent to ${email.audienceSize} leads`);
}

// ───────────── the campaign's ordinary week: People, the WhatsApp inbox and the PQRS desk

/** Barrios of each comuna (the real ones), in COMUNAS' order. */
const BARRIOS: readonly (readonly string[])[] = [
  ['Santo Domingo Savio', 'Popular', 'Granizal', 'Moscú No. 2'],
  ['Santa Cruz', 'La Isla', 'Villa del Socorro', 'Moscú No. 1'],
  ['Manrique Central', 'La Salle', 'Las Granjas', 'El Raizal'],
  ['Aranjuez', 'Moravia', 'Campo Valdés', 'Palermo'],
  ['Castilla', 'Alfonso López', 'Francisco Antonio Zea', 'Tejelo'],
  ['Doce de Octubre', 'Pedregal', 'Kennedy', 'Picacho'],
  ['Robledo', 'El Volador', 'López de Mesa', 'Aures'],
  ['Villa Hermosa', 'Enciso', 'La Mansión', 'Los Mangos'],
  ['Buenos Aires', 'Caicedo', 'Miraflores', 'Loreto'],
  ['Prado', 'Boston', 'San Benito', 'Villanueva'],
  ['Laureles', 'Estadio', 'Conquistadores', 'Florida Nueva'],
  ['La América', 'Santa Mónica', 'Calasanz', 'Simón Bolívar'],
  ['San Javier', '20 de Julio', 'El Salado', 'Belencito'],
  ['Manila', 'Astorga', 'Lalinde', 'Los Balsos'],
  ['Guayabal', 'Trinidad', 'Santa Fe', 'Cristo Rey'],
  ['Belén', 'Fátima', 'Rosales', 'La Mota'],
];
const SUPPORTER_FIRST = [
  'María Fernanda',
  'Luz Marina',
  'Juan David',
  'John Jairo',
  'Leidy Johana',
  'Jhon Fredy',
  'Yesenia',
  'Wilmar',
  'Deisy',
  'Duván',
  'Yeison',
  'Ana María',
  'Carlos Andrés',
  'Gloria Inés',
  'Luis Fernando',
  'Paola Andrea',
  'Sandra Milena',
  'Jorge Iván',
  'Beatriz Elena',
  'Óscar',
  'Marta Lucía',
  'Hernán',
  'Alba Lucía',
  'Diego Alejandro',
  'Natalia',
  'Sebastián',
  'Valentina',
  'Camilo',
  'Daniela',
  'Mauricio',
  'Claudia Patricia',
  'Rubén Darío',
  'Érika',
  'Estefanía',
  'Wilson',
  'Manuela',
  'Cristian Camilo',
  'Luisa Fernanda',
  'Fabio',
  'Dora Elena',
];
const SUPPORTER_LAST = [
  ...LAST,
  'Ruiz',
  'Torres',
  'Ramírez',
  'Hernández',
  'Jaramillo',
  'Montoya',
  'Osorio',
  'Agudelo',
  'Betancur',
  'Correa',
  'Úsuga',
  'Tabares',
  'Cano',
  'Salazar',
  'Londoño',
  'Echeverri',
  'Posada',
  'Sierra',
  'Valencia',
  'Marín',
];
const TOPICS = ['seguridad', 'empleo', 'movilidad', 'educación', 'salud', 'vivienda', 'deporte', 'medio ambiente'];
const EMAIL_DOMAINS = ['example.com', 'example.org', 'example.net'];

const IMPORT_CONSENT =
  'Autorizo a Campaña Demo, responsable del tratamiento de mis datos personales, a usarlos para informarme de sus propuestas, eventos y actividades ' +
  'por WhatsApp y por correo electrónico, según la Ley 1581 de 2012 y su política de tratamiento de datos. Puedo conocer, actualizar, rectificar y ' +
  'suprimir mis datos y revocar esta autorización cuando quiera. (Texto de demostración de `npm run demo`: estas personas no existen.)';

const QUICK_REPLIES = [
  {
    shortcut: '/horario',
    title: 'Horario del encuentro del sábado',
    text: 'Hola, {{primer_nombre}}: el encuentro es este sábado a las 4:00 p. m.; abrimos puertas a las 3:00 p. m. ¡Te esperamos!',
  },
  {
    shortcut: '/ubicacion',
    title: 'Dónde es el encuentro',
    text: 'Es en el parque principal de Belén, en la tarima frente a la iglesia. Si vienes en metro, bájate en la estación Industriales y toma el integrado a Belén.',
  },
  {
    shortcut: '/gracias',
    title: 'Gracias por escribir',
    text: 'Gracias por escribirnos, {{nombre}}. Soy {{agente}}, del equipo de Campaña Demo: aquí estamos para lo que necesites.',
  },
];

interface Supporter {
  name: string;
  /** Ten digits, or none (an email-only row). */
  phone?: string;
  email?: string;
  documentId?: number;
  comuna: number;
  barrio: string;
  tags: string[];
}

const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

/** A phone as people type it in a spreadsheet: with or without +57, spaces, dashes or brackets. */
function phoneAsTyped(digits: string, style: number): string {
  const [a, b, c] = [digits.slice(0, 3), digits.slice(3, 6), digits.slice(6)];
  return [digits, `${a} ${b} ${c}`, `+57 ${a}-${b}-${c}`, `(${a}) ${b} ${c}`, `${a}-${b}-${c.slice(0, 2)}-${c.slice(2)}`, `+57${digits}`][style % 6]!;
}

/** A cédula as typed: with dots, with spaces or bare. */
function cedulaAsTyped(number: number, style: number): string {
  const grouped = number.toLocaleString('de-DE');
  return [grouped, grouped.replace(/\./g, ' '), String(number)][style % 3]!;
}

const csvCell = (value: string | undefined) => (value === undefined ? '' : /[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

/** An 8-digit cédula, below the 10-digit range the voters' import uses, so the two never collide. */
const cedula = () => randomInt(10_000_000, 99_999_999);

/** The supporters' spreadsheet: `leadsToUpdate` are people the posters already captured, typed again (the import updates them). */
function supportersFile(comunaCodes: readonly string[], leadsToUpdate: readonly { name: string; phone: string }[]): { csv: string; people: Supporter[] } {
  const people: Supporter[] = [];
  const phones = new Set(leadsToUpdate.map((lead) => lead.phone));
  let emailNumber = 0;
  for (const lead of leadsToUpdate) {
    const comuna = randomInt(COMUNAS.length);
    people.push({ name: lead.name, phone: lead.phone, documentId: cedula(), comuna, barrio: pick(BARRIOS[comuna]!), tags: ['voluntario'] });
  }
  while (people.length < 200) {
    const first = pick(SUPPORTER_FIRST);
    const last = `${pick(SUPPORTER_LAST)} ${pick(SUPPORTER_LAST)}`;
    let phone: string | undefined = people.length % 12 === 5 ? undefined : mobile();
    while (phone && phones.has(phone)) phone = mobile();
    if (phone) phones.add(phone);
    const local = `${fold(first.split(' ')[0]!)}.${fold(last.split(' ')[0]!)}${++emailNumber}`;
    const email = !phone || Math.random() < 0.4 ? `${local}@${pick(EMAIL_DOMAINS)}` : undefined;
    const comuna = randomInt(COMUNAS.length);
    const tags = [
      ...(Math.random() < 0.22 ? ['líder'] : []),
      ...(Math.random() < 0.12 ? ['transporte'] : []),
      ...(Math.random() < 0.35 ? ['voluntario'] : []),
      ...(Math.random() < 0.08 ? ['testigo electoral'] : []),
    ];
    people.push({ name: `${first} ${last}`, phone, email, documentId: Math.random() < 0.6 ? cedula() : undefined, comuna, barrio: pick(BARRIOS[comuna]!), tags });
  }
  const rows = ['nombre,celular,correo,cedula,codigoTerritorio,barrio,etiquetas,intereses,autorizaWhatsapp,autorizaCorreo'];
  people.forEach((person, i) => {
    const interests = [...new Set([pick(TOPICS), pick(TOPICS)])].slice(0, 1 + randomInt(2));
    rows.push(
      [
        person.name,
        person.phone && phoneAsTyped(person.phone, i),
        person.email,
        person.documentId === undefined ? undefined : cedulaAsTyped(person.documentId, i),
        comunaCodes[person.comuna],
        person.barrio,
        person.tags.join(';'),
        interests.join(';'),
        person.phone ? (Math.random() < 0.85 ? 'sí' : 'no') : '',
        person.email ? (Math.random() < 0.75 ? 'si' : 'no') : '',
      ]
        .map(csvCell)
        .join(','),
    );
  });
  return { csv: rows.join('\n'), people };
}

/** The WhatsApp number id and business account the simulator uses too: deliveries look like Meta's. */
const WA_PHONE_NUMBER_ID = '100000000000001';
const WA_BUSINESS_ACCOUNT = '100000000000002';

/** A webhook delivery signed as Meta signs it: `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the raw body with the app secret>`. */
async function signedWebhook(secret: string, payload: unknown): Promise<number> {
  const raw = JSON.stringify(payload);
  const response = await fetch(`${BASE}/api/whatsapp/webhook`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': `sha256=${createHmac('sha256', secret).update(raw, 'utf8').digest('hex')}` },
    body: raw,
    signal: AbortSignal.timeout(15_000),
  });
  await response.arrayBuffer();
  return response.status;
}

/**
 * Whether the server takes webhooks signed with the demo's secret: an empty delivery (no change in
 * it), which the server acknowledges and ignores. 'none': the demo has no secret to sign with.
 */
async function webhookCheck(secret: string | undefined): Promise<'signed' | 'refused' | 'none'> {
  if (!secret) return 'none';
  return (await signedWebhook(secret, { object: 'whatsapp_business_account', entry: [] })) === 200 ? 'signed' : 'refused';
}

/** One message a person sends, as the Cloud API delivers it: their number, their WhatsApp profile name, the text (or a photo). */
function inboundDelivery(phone: string, profileName: string | undefined, content: { text: string } | { photo: true }, at: Date) {
  const from = `57${phone}`;
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: WA_BUSINESS_ACCOUNT,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550000000', phone_number_id: WA_PHONE_NUMBER_ID },
              contacts: [{ wa_id: from, ...(profileName ? { profile: { name: profileName } } : {}) }],
              messages: [
                {
                  from,
                  id: `wamid.DEMO${randomBytes(12).toString('hex')}`,
                  timestamp: String(Math.floor(at.getTime() / 1000)),
                  ...('text' in content
                    ? { type: 'text', text: { body: content.text } }
                    : { type: 'image', image: { id: String(randomInt(10 ** 12, 10 ** 13)), mime_type: 'image/jpeg' } }),
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

interface PqrsFiling {
  type: 'peticion' | 'queja' | 'reclamo' | 'sugerencia' | 'denuncia' | 'consulta' | 'informacion';
  subject: string;
  description: string;
  comuna: number;
  /** Staff filing what reached them another way; none: the citizen filed it on the web. */
  channel?: 'presencial' | 'telefono' | 'email';
  anonymous?: true;
  /** What the desk does with it. */
  then?: { assign?: 'desk' | 'manager'; status?: 'in_progress' | 'waiting_citizen'; priority?: 'high' | 'urgent'; answer?: string; close?: true; extend?: string };
}

const PQRS_FILINGS: readonly PqrsFiling[] = [
  {
    type: 'peticion',
    subject: 'Reparación de los huecos de la carrera 52 en Aranjuez',
    description:
      'Solicito que la campaña gestione ante la Secretaría de Infraestructura la reparación de los huecos de la carrera 52 entre las calles 90 y 92. Los buses del barrio ya no suben por ahí y los adultos mayores tienen que caminar.',
    comuna: 3,
    then: {
      assign: 'desk',
      status: 'in_progress',
      extend:
        'La respuesta requiere la visita técnica del equipo de infraestructura de la campaña a la carrera 52, programada para la próxima semana con la junta de acción comunal.',
    },
  },
  {
    type: 'peticion',
    subject: 'Reunión con la junta de acción comunal de El Salado',
    description:
      'Como presidenta de la JAC de El Salado pedimos una reunión con el candidato para presentarle las necesidades del sector: el acueducto veredal, el transporte y la seguridad en la parte alta.',
    comuna: 12,
    channel: 'presencial',
    then: {
      assign: 'manager',
      answer:
        'Con gusto. El candidato se reunirá con la junta el martes a las 6:00 p. m. en la sede comunal de El Salado. La coordinación de la campaña le confirmará por teléfono. Gracias por la invitación.',
      close: true,
    },
  },
  {
    type: 'peticion',
    subject: 'Programas de empleo para jóvenes en la comuna 1',
    description:
      'Soy madre cabeza de hogar. Mis dos hijos terminaron el bachillerato hace un año y no consiguen trabajo. ¿Qué programas de empleo juvenil propone la campaña para la comuna 1?',
    comuna: 0,
    then: { assign: 'desk', status: 'in_progress' },
  },
  {
    type: 'peticion',
    subject: 'Más cupos de Buen Comienzo en Rosales',
    description:
      'En Belén Rosales hay lista de espera de más de 40 niños para la atención a la primera infancia. Pedimos que la campaña incluya la ampliación de cupos en su programa.',
    comuna: 15,
  },
  {
    type: 'peticion',
    subject: 'Mantenimiento de la cancha sintética de Castilla',
    description:
      'La cancha del barrio tiene la grama rota y las mallas caídas. Pedimos que la propuesta de deporte incluya su mantenimiento y la escuela de fútbol para los niños.',
    comuna: 4,
    channel: 'telefono',
  },
  {
    type: 'peticion',
    subject: 'Punto de reciclaje en Laureles',
    description: 'Solicitamos un punto de reciclaje en el segundo parque de Laureles; los recicladores del barrio se ofrecen a manejarlo.',
    comuna: 10,
    channel: 'email',
    then: {
      assign: 'desk',
      answer:
        'Gracias por la propuesta. El programa de gobierno incluye puntos de reciclaje con las asociaciones de recicladores en cada comuna; su solicitud quedó en la lista de la comuna 11.',
    },
  },
  {
    type: 'queja',
    subject: 'Ruido del evento de campaña en el parque de Belén',
    description:
      'El sábado la tarima del evento tuvo música a alto volumen hasta las 10 de la noche. En la cuadra hay adultos mayores y niños pequeños. Esperamos que no se repita.',
    comuna: 15,
    then: {
      assign: 'manager',
      priority: 'high',
      answer:
        'Le ofrecemos disculpas. Desde este fin de semana los eventos de la campaña terminan a las 8:00 p. m. y el sonido se mide durante el evento para no pasar los límites permitidos.',
      close: true,
    },
  },
  {
    type: 'queja',
    subject: 'Afiches de la campaña pegados en los postes',
    description: 'En la carrera 70 hay afiches de la campaña pegados en los postes del alumbrado. Eso no está permitido y ensucia el barrio.',
    comuna: 10,
    then: {
      assign: 'desk',
      answer: 'Tiene razón. El equipo de la comuna 11 retiró los afiches de la carrera 70 y recordamos a los voluntarios que solo se pegan donde está autorizado.',
    },
  },
  {
    type: 'queja',
    subject: 'Voluntario irrespetuoso en el puerta a puerta',
    description: 'Un voluntario de la campaña fue grosero con mi mamá cuando ella no quiso recibir el volante. Fue el jueves en la tarde en Campo Valdés.',
    comuna: 3,
    channel: 'telefono',
    then: { assign: 'manager', status: 'in_progress', priority: 'high' },
  },
  {
    type: 'queja',
    subject: 'Robos en el puente peatonal de la avenida 80',
    description:
      'Al atardecer roban con frecuencia en el puente peatonal de la avenida 80 con la calle 65. Pedimos que la propuesta de seguridad incluya iluminación y presencia de la policía.',
    comuna: 6,
    then: { assign: 'desk', priority: 'urgent' },
  },
  {
    type: 'queja',
    subject: 'El centro de salud de Santa Cruz no tiene médico en la tarde',
    description: 'Desde hace dos meses el centro de salud no tiene médico después de la 1:00 p. m. y hay que ir hasta el hospital. ¿Qué propone la campaña en salud?',
    comuna: 1,
  },
  {
    type: 'reclamo',
    subject: 'No me han llamado después de inscribirme como voluntario',
    description: 'Me inscribí hace dos semanas en el formulario de voluntarios y nadie me ha llamado. Quiero ayudar los fines de semana.',
    comuna: 7,
    then: {
      assign: 'desk',
      answer: 'Disculpe la demora. La coordinadora de voluntarios de la comuna 8 lo llamará esta semana para darle la bienvenida y contarle de la jornada del sábado.',
      close: true,
    },
  },
  {
    type: 'reclamo',
    subject: 'Me siguen llegando correos después de pedir que no',
    description: 'Pedí que me sacaran de la lista de correos de la campaña y me siguen llegando. Por favor no me escriban más.',
    comuna: 11,
    channel: 'email',
    then: { assign: 'manager', status: 'in_progress', priority: 'high' },
  },
  {
    type: 'reclamo',
    subject: 'Cobro por la camiseta del encuentro de Robledo',
    description: 'En el encuentro de Robledo nos cobraron $20.000 por la camiseta que habían dicho que era gratis.',
    comuna: 6,
  },
  {
    type: 'sugerencia',
    subject: 'Hacer los encuentros el domingo en la mañana',
    description: 'Muchos trabajamos los sábados. Propongo que los encuentros de la campaña sean el domingo en la mañana, así va más gente.',
    comuna: 8,
    then: { answer: 'Gracias por la sugerencia. El próximo encuentro de la comuna 9 será un domingo a las 10:00 a. m.; se lo contaremos por este medio.' },
  },
  {
    type: 'sugerencia',
    subject: 'Lengua de señas en los videos de la campaña',
    description: 'Los videos de la campaña deberían tener intérprete de lengua de señas o al menos subtítulos. Somos muchas personas sordas en la ciudad.',
    comuna: 9,
  },
  {
    type: 'sugerencia',
    subject: 'Ciclorruta por la avenida Guayabal',
    description: 'Propongo una ciclorruta por la avenida Guayabal hasta el centro; muchos trabajadores vamos en bicicleta por la vía sin ninguna protección.',
    comuna: 14,
    channel: 'presencial',
  },
  {
    type: 'consulta',
    subject: 'Propuesta sobre el POT en El Poblado',
    description: '¿Cuál es la posición de la campaña sobre la revisión del POT y la construcción en las laderas de El Poblado?',
    comuna: 13,
  },
  {
    type: 'consulta',
    subject: 'Salud mental para jóvenes',
    description: '¿La campaña tiene propuestas de salud mental para jóvenes? En el colegio de mi hija hubo dos casos este año.',
    comuna: 5,
    then: { assign: 'desk', status: 'in_progress' },
  },
  {
    type: 'consulta',
    subject: 'Presupuesto participativo',
    description: '¿Cómo funcionaría el presupuesto participativo que propone la campaña? ¿Las juntas de acción comunal seguirían decidiendo?',
    comuna: 2,
    channel: 'telefono',
  },
  {
    type: 'informacion',
    subject: 'Copia del programa de gobierno',
    description: 'Solicito copia en PDF del programa de gobierno inscrito por el candidato.',
    comuna: 10,
    channel: 'email',
    then: {
      assign: 'desk',
      answer: 'Le enviamos el programa de gobierno en PDF al correo que registró. También puede descargarlo en la página de la campaña.',
      close: true,
    },
  },
  {
    type: 'informacion',
    subject: 'Dónde consultar los gastos de la campaña',
    description: 'Quiero saber dónde puedo consultar los ingresos y gastos de la campaña.',
    comuna: 12,
  },
  {
    type: 'informacion',
    subject: 'Fecha del debate en la universidad',
    description: '¿En qué fecha y a qué hora es el debate de candidatos en la universidad? ¿Se puede asistir sin ser estudiante?',
    comuna: 9,
    channel: 'telefono',
  },
  {
    type: 'denuncia',
    subject: 'Ofrecen mercados a cambio de la cédula',
    description: 'En la parte alta de La Cruz un señor está ofreciendo mercados a cambio de la cédula y dice que es de esta campaña. Lo hace los domingos en la tarde.',
    comuna: 2,
    anonymous: true,
    then: { assign: 'manager', priority: 'urgent', status: 'in_progress' },
  },
];

interface WeekCast {
  manager: Session;
  desk: Session;
  comunas: readonly { id: string; name: string }[];
  comunaCodes: readonly string[];
  leads: readonly { name: string; phone: string }[];
  secret: string | undefined;
}

interface WeekOutcome {
  imported: { created: number; updated: number; rejected: number };
  tagged: number;
  notes: number;
  duplicatePairs: number;
  conversations: number;
  unread: { conversations: number; messages: number };
  pqrs: { filed: number; answered: number; extended: number; assigned: number; limited: number };
  seconds: number;
}

/** The person the import made of a phone (the search takes any format). */
async function personByPhone(session: Session, phone: string): Promise<{ id: string; name: string; tags: string[] }> {
  const page = await must<{ data: { id: string; name: string; tags: string[] }[] }>('GET', `/api/audience/contacts?q=${phone}&limit=1`, session.token);
  if (!page.data[0]) throw new Error(`No person with the phone ${phone} after the import.`);
  return page.data[0];
}

async function ordinaryWeek(cast: WeekCast): Promise<WeekOutcome> {
  const started = performance.now();
  const { manager, desk } = cast;

  // People: the supporters' spreadsheet from the leaders' meeting, with its consent proof.
  const file = supportersFile(cast.comunaCodes, cast.leads.slice(0, 3));
  const query = new URLSearchParams({
    consentText: IMPORT_CONSENT,
    consentCollection: `Demostración (npm run demo, ${RUN}): planillas firmadas en el encuentro de líderes de la sede de Campaña Demo; datos ficticios.`,
    privacyPolicyUrl: 'https://example.org/privacidad',
  });
  const imported = await must<{ created: number; updated: number; rejectedCount: number; rejected: { line: number; message: string }[] }>(
    'POST',
    `/api/audience/contacts/import?${query}`,
    manager.token,
    file.csv,
    'text/csv',
  );
  log(
    `  supporters' file: ${imported.created} people created, ${imported.updated} updated from the posters` +
      (imported.rejectedCount ? ` (${imported.rejectedCount} rows refused, e.g. line ${imported.rejected[0]?.line}: ${imported.rejected[0]?.message})` : ''),
  );

  // Tags and staff notes on some of them.
  const withPhone = file.people.filter((person) => person.phone && person.documentId !== undefined).slice(3);
  const [leader, driver, witness, coordinator, twin, ...others] = withPhone;
  const retag: [Supporter, string[]][] = [
    [leader!, ['líder', 'coordinador de barrio']],
    [driver!, ['transporte']],
    [witness!, ['testigo electoral', 'voluntario']],
    [coordinator!, ['líder', 'testigo electoral']],
    [others[0]!, ['voluntario', 'comunicaciones']],
  ];
  const tagged = await inParallel(retag, async ([person, extra]) => {
    const held = await personByPhone(manager, person.phone!);
    await must('PATCH', `/api/audience/contacts/${held.id}`, manager.token, { tags: [...new Set([...held.tags, ...extra])] });
    return held;
  });
  const notes: [number, Session, string][] = [
    [0, manager, 'Llamé el martes: confirma que lleva 15 vecinos al encuentro del sábado. Pide volantes para la cuadra.'],
    [0, desk, 'Prefiere que la llamen después de las 6:00 p. m.; en el día trabaja en la plaza de mercado.'],
    [1, manager, 'Tiene una buseta de 19 puestos y ofrece llevar a los vecinos al encuentro del sábado. Coordinar con logística.'],
    [2, desk, 'Hizo la capacitación de testigos del jueves. Falta asignarle mesa.'],
  ];
  await inParallel(notes, ([who, author, text]) => must('POST', `/api/audience/contacts/${tagged[who]!.id}/notes`, author.token, { text }));

  // Quick replies the team answers with (a Comando that already has these shortcuts keeps its own: 409 shortcut_taken).
  for (const quick of QUICK_REPLIES) {
    const answer = await call('POST', '/api/whatsapp/quick-replies', manager.token, quick);
    if (answer.status >= 300 && answer.status !== 409) throw new Error(`POST /api/whatsapp/quick-replies answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  }

  const comuna = (i: number) => cast.comunas[i]!.id;
  const people = file.people;
  const filings = await inParallel(
    PQRS_FILINGS.map((filing, i) => ({ filing, i })),
    async ({ filing, i }) => {
      // A few filers are supporters of the file (the same phone: the same person); the rest arrive at the desk for the first time.
      const supporter = i % 8 === 2 ? people[20 + i] : undefined;
      const first = pick(SUPPORTER_FIRST);
      const last = `${pick(SUPPORTER_LAST)} ${pick(SUPPORTER_LAST)}`;
      const email = supporter
        ? supporter.email
        : i % 3 === 0
          ? undefined
          : `${fold(first.split(' ')[0]!)}.${fold(last.split(' ')[0]!)}${randomInt(10, 100)}@${pick(EMAIL_DOMAINS)}`;
      const citizen = filing.anonymous
        ? { anonymous: true }
        : {
            name: supporter?.name ?? `${first} ${last}`,
            phone: supporter ? supporter.phone : i % 3 === 1 ? undefined : mobile(),
            email,
            // A supporter's cédula is the spreadsheet's: a filing would overwrite it with what it gives.
            documentId: !supporter && Math.random() < 0.5 ? String(cedula()) : undefined,
            consent: true,
            emailOptIn: email !== undefined,
          };
      const answer = await call<{ id: string; number: string }>('POST', '/api/pqrs', filing.channel ? desk.token : undefined, {
        type: filing.type,
        subject: filing.subject,
        description: filing.description,
        territoryId: comuna(filing.comuna),
        ...citizen,
        ...(filing.channel ? { channel: filing.channel } : {}),
      });
      if (answer.status === 429) return undefined;
      if (answer.status >= 300) throw new Error(`POST /api/pqrs answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return { filing, id: answer.body.id, number: answer.body.number };
    },
    4,
  );
  const filed = filings.filter((entry) => entry !== undefined);
  // The same person, at the office with another phone, giving the cédula of the spreadsheet: a pair for the duplicates screen.
  await must('POST', '/api/pqrs', desk.token, {
    channel: 'presencial',
    type: 'peticion',
    subject: 'Certificado de participación en la jornada de voluntarios',
    description: 'Necesito un certificado de que participé en la jornada de voluntarios del mes pasado, para la universidad.',
    name: twin!.name.split(' ').slice(0, -1).join(' '),
    phone: mobile(),
    documentId: cedulaAsTyped(twin!.documentId!, 0),
    territoryId: comuna(twin!.comuna),
    consent: true,
  });
  const pqrsFiled = filed.length + 1;
  let answered = 0;
  let extended = 0;
  let assigned = 0;
  await inParallel(
    filed,
    async ({ filing, id }) => {
      const then = filing.then;
      if (!then) return;
      if (then.assign || then.status || then.priority) {
        await must('PATCH', `/api/pqrs/${id}`, manager.token, {
          ...(then.assign ? { assigneeId: (then.assign === 'desk' ? desk : manager).id } : {}),
          ...(then.status ? { status: then.status } : {}),
          ...(then.priority ? { priority: then.priority } : {}),
          note: then.assign === 'desk' ? 'Para atención ciudadana.' : 'Lo lleva la coordinación.',
        });
        if (then.assign) assigned++;
      }
      const by = then.assign === 'manager' ? manager : desk;
      if (then.extend) {
        const request = await must<{ latestExtensionDate: string | null }>('GET', `/api/pqrs/${id}`, by.token);
        if (request.latestExtensionDate) {
          await must('POST', `/api/pqrs/${id}/extend`, by.token, { newDueDate: request.latestExtensionDate, reason: then.extend });
          extended++;
        }
      }
      if (then.answer) {
        await must('POST', `/api/pqrs/${id}/answer`, by.token, { answer: then.answer, close: then.close ?? false });
        answered++;
      }
    },
    4,
  );

  // The inbox: people write to the campaign's number; Meta would deliver each message to the webhook, signed.
  let conversations = 0;
  let fromWhatsApp = false;
  if (cast.secret) {
    const secret = cast.secret;
    const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    const say = async (phone: string, profile: string | undefined, content: string | { photo: true }, at: Date) => {
      const status = await signedWebhook(secret, inboundDelivery(phone, profile, typeof content === 'string' ? { text: content } : content, at));
      if (status !== 200) throw new Error(`POST /api/whatsapp/webhook answered ${status}`);
    };
    const conversationOf = async (phone: string) => {
      const page = await must<{ data: { id: string }[] }>('GET', `/api/whatsapp/conversations?q=${phone}&limit=1`, manager.token);
      if (!page.data[0]) throw new Error(`No conversation with ${phone} after its message.`);
      return page.data[0].id;
    };
    const quickReply = async (conversationId: string, staff: Session, shortcut: string) => {
      const found = await must<{ data: { shortcut: string; rendered: { text: string } | null }[] }>(
        'GET',
        `/api/whatsapp/quick-replies?q=${encodeURIComponent(shortcut)}&conversationId=${conversationId}`,
        staff.token,
      );
      const text = found.data.find((quick) => quick.shortcut === shortcut)?.rendered?.text;
      if (text) await must('POST', `/api/whatsapp/conversations/${conversationId}/messages`, staff.token, { text });
    };
    const pause = () => new Promise((resolve) => setTimeout(resolve, 1100));
    const supporters = people.filter((person) => person.phone).slice(40);
    const newcomer = () => mobile();
    const hernando = newcomer();
    const chats: (() => Promise<void>)[] = [
      // Asked about the event, answered with /horario, thanked: resolved.
      async () => {
        const person = supporters[0]!;
        await say(person.phone!, person.name.split(' ')[0], 'Buenas tardes, ¿a qué hora es el encuentro del sábado?', minutesAgo(95));
        const id = await conversationOf(person.phone!);
        await must('POST', `/api/whatsapp/conversations/${id}/read`, desk.token);
        await quickReply(id, desk, '/horario');
        await pause();
        await say(person.phone!, person.name.split(' ')[0], 'Listo, muchas gracias 🙏', new Date());
        await must('POST', `/api/whatsapp/conversations/${id}/read`, desk.token);
        await must('PATCH', `/api/whatsapp/conversations/${id}`, desk.token, { status: 'closed' });
      },
      // Two questions, unread, assigned to citizen attention.
      async () => {
        const person = supporters[1]!;
        await say(person.phone!, person.name.split(' ')[0], 'Hola, ¿dónde queda el evento del sábado? Voy con tres vecinos de La Salle', minutesAgo(48));
        await say(person.phone!, person.name.split(' ')[0], '¿Hay transporte desde el barrio o nos toca en metro?', minutesAgo(46));
        const id = await conversationOf(person.phone!);
        await must('PATCH', `/api/whatsapp/conversations/${id}`, manager.token, { assignedToId: desk.id });
      },
      // A complaint from someone new: read, turned into a PQRS request assigned to the desk, answered with its number.
      async () => {
        await say(
          hernando,
          'Hernando Gil',
          'Buenas. Llevamos casi un mes sin alumbrado en la calle 80 con carrera 45 y ya pusimos la queja varias veces. ¿La campaña qué propone?',
          minutesAgo(180),
        );
        await say(hernando, 'Hernando Gil', 'Es peligroso de noche, ya robaron a dos vecinas saliendo del bus', minutesAgo(178));
        const id = await conversationOf(hernando);
        await must('POST', `/api/whatsapp/conversations/${id}/read`, desk.token);
        await must('PATCH', `/api/whatsapp/conversations/${id}`, manager.token, { assignedToId: desk.id });
        const request = await must<{ id: string; number: string }>('POST', '/api/pqrs/from-whatsapp', desk.token, {
          conversationId: id,
          type: 'queja',
          subject: 'Alumbrado apagado en la calle 80 con carrera 45',
          territoryId: comuna(6),
          priority: 'high',
        });
        await must('PATCH', `/api/pqrs/${request.id}`, manager.token, { assigneeId: desk.id, status: 'in_progress', note: 'Viene de WhatsApp: seguimiento con la Secretaría.' });
        fromWhatsApp = true;
        await must('POST', `/api/whatsapp/conversations/${id}/messages`, desk.token, {
          text: `Hola, Hernando. Radicamos su queja con el número ${request.number}; le contamos la respuesta por aquí. Gracias por avisarnos.`,
        });
      },
      // BAJA: the person withdraws WhatsApp consent.
      async () => {
        const person = supporters[2]!;
        await say(person.phone!, undefined, 'BAJA', minutesAgo(300));
      },
      // Someone new who wants to volunteer: unread.
      async () => {
        await say(newcomer(), 'Yuli ✨', '¡Hola! Quiero ser voluntaria, ¿cómo me inscribo? Vivo en Doce de Octubre', minutesAgo(25));
      },
      // A poster lead, after the poster: unread.
      async () => {
        const lead = cast.leads[5]!;
        await say(lead.phone, lead.name.split(' ')[0], 'Vi el afiche en la tienda. ¿El evento es gratis? ¿Puedo llevar a mis hijos?', minutesAgo(12));
      },
      // Where do I vote: answered, read, left open.
      async () => {
        const person = supporters[3]!;
        await say(person.phone!, person.name.split(' ')[0], 'Buenos días, soy de Robledo. ¿Cómo sé en qué puesto me toca votar?', minutesAgo(140));
        const id = await conversationOf(person.phone!);
        await must('POST', `/api/whatsapp/conversations/${id}/read`, desk.token);
        await must('POST', `/api/whatsapp/conversations/${id}/messages`, desk.token, {
          text: 'Buenos días. Puede consultar su puesto de votación en la página de la Registraduría con su número de cédula. Si quiere, le ayudamos: escríbanos la cédula por aquí.',
        });
      },
      // A photo and its explanation: unread.
      async () => {
        const person = supporters[4]!;
        await say(person.phone!, person.name.split(' ')[0], { photo: true }, minutesAgo(70));
        await say(person.phone!, person.name.split(' ')[0], 'Esta es la foto del hueco frente a mi casa, en Pedregal. Ya se cayeron dos motos', minutesAgo(69));
      },
      // Praise and a question: unread.
      async () => {
        await say(newcomer(), 'Profe Martha', 'Muy buenas las propuestas de educación 👏 ¿Van a ir al colegio de Belén a presentarlas a los profesores?', minutesAgo(33));
      },
      // A supporter offering a hand, greeted with /gracias: read, open.
      async () => {
        const person = supporters.slice(5).find((candidate) => candidate.tags.includes('transporte')) ?? supporters[5]!;
        await say(person.phone!, person.name.split(' ')[0], 'Tengo buseta para el sábado, ¿a quién le aviso?', minutesAgo(210));
        const id = await conversationOf(person.phone!);
        await must('POST', `/api/whatsapp/conversations/${id}/read`, desk.token);
        await quickReply(id, desk, '/gracias');
      },
    ];
    await inParallel(chats, (chat) => chat(), 4);
    conversations = chats.length;
  }

  const pairs = await must<{ data: unknown[] }>('GET', `/api/audience/duplicates?contactId=${(await personByPhone(manager, twin!.phone!)).id}`, manager.token);
  const unread = await must<{ conversations: number; messages: number }>('GET', '/api/whatsapp/conversations/unread', manager.token);
  return {
    imported: { created: imported.created, updated: imported.updated, rejected: imported.rejectedCount },
    tagged: tagged.length,
    notes: notes.length,
    duplicatePairs: pairs.data.length,
    conversations,
    unread,
    pqrs: { filed: pqrsFiled + (fromWhatsApp ? 1 : 0), answered, extended, assigned: assigned + (fromWhatsApp ? 1 : 0), limited: filings.length - filed.length },
    seconds: (performance.now() - started) / 1000,
  };
}

async function main(): Promise<void> {
  if (!(SPEED >= 1 && SPEED <= 240)) throw new Error('--speed must be between 1 and 240 (30: an 8-hour day in 16 minutes).');
  const dayMinutes = Math.max(8, Math.round(480 / SPEED));
  const port = Number(args.port);
  if (!Number.isInteger(port) || port < 1024 || port > 65_535) throw new Error('--port must be a whole number from 1024 to 65535.');
  if (args.url) {
    BASE = args.url.replace(/\/+$/, '');
    const health = await fetch(`${BASE}/api/test`).catch(() => undefined);
    if (!health?.ok) throw new Error(`No Comando answers at ${BASE}.`);
  } else {
    log(`Starting the demo's own Comando (its database in ${path.relative(process.cwd(), DEMO_DATA) || DEMO_DATA}, port ${port})…`);
    const own = await startOwnComando(port);
    BASE = own.url;
    const stop = () => own.child.kill('SIGTERM');
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    process.once('exit', stop);
  }

  log(`Comando at ${BASE}: building the demo campaign (run ${RUN})…`);
  const admin = await adminSession();
  const webhook = await webhookCheck(process.env.WHATSAPP_APP_SECRET?.trim() || undefined);
  if (webhook !== 'signed') {
    log(
      webhook === 'none'
        ? "  No WHATSAPP_APP_SECRET here: nobody will write to the inbox (the demo signs their messages with it, as Meta does): set the server's."
        : "  The server refuses webhooks signed with this WHATSAPP_APP_SECRET: set the server's. Nobody will write to the inbox.",
    );
  }
  const manager = await createUser(admin, 'manager', 'coordinacion', 'Coordinación de campaña');
  // The citizen desk's staff member answers the inbox and the PQRS desk: an account only the week needs.
  const desk = await createUser(admin, 'manager', 'atencion', 'Daniela Ruiz');
  const viewer = await createUser(admin, 'viewer', 'sala', 'Sala de situación');
  const members = await inParallel(
    Array.from({ length: 30 }, (_, i) => i),
    (i) => createUser(admin, 'brigade', `brigada${String(i + 1).padStart(2, '0')}`, personName()),
  );

  // The city and its comunas: a 4 × 4 grid over Medellín's valley.
  const [south, west, cellHeight, cellWidth] = [6.17, -75.64, 0.035, 0.035];
  const city = await must<{ id: string }>('POST', '/api/territories', manager.token, {
    name: 'Medellín',
    type: 'municipality',
    code: `DEMO-${RUN}`,
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [west, south],
          [west + 4 * cellWidth, south],
          [west + 4 * cellWidth, south + 4 * cellHeight],
          [west, south + 4 * cellHeight],
          [west, south],
        ],
      ],
    },
  });
  const comunas = await inParallel(COMUNAS, (name, i) => {
    const cellSouth = south + Math.floor(i / 4) * cellHeight;
    const cellWest = west + (i % 4) * cellWidth;
    return must<{ id: string }>('POST', '/api/territories', manager.token, {
      name: `Comuna ${i + 1} ${name}`,
      type: 'commune',
      code: `DEMO-${RUN}-C${i + 1}`,
      parentId: city.id,
      geometry: { type: 'Polygon', coordinates: outline(cellSouth, cellWest, cellHeight, cellWidth) },
    }).then((territory) => ({ id: territory.id, name, south: cellSouth, west: cellWest }));
  });
  log('  16 comunas with outlines');

  // Election day happens at Cartagena's real puestos (fixtures/co-puestos): its localidades as
  // comunas, each puesto where the Registraduría places it, its registered voters and mesas from the
  // census file (the puestos both files name).
  const puestos = cartagenaPuestos();
  const territories = await must<{ created: number }>('POST', '/api/territories/import', manager.token, puestos.georeferenced, 'text/csv');
  const placed = await must<{ created: number }>('POST', '/api/gotv/polling-stations/import', manager.token, puestos.georeferenced, 'text/csv');
  await must('POST', '/api/gotv/polling-stations/import', manager.token, puestos.census, 'text/csv');
  const stations: { id: string; code: string; registered: number; tables: number }[] = [];
  let stationCursor: string | null = null;
  do {
    const page: { data: { id: string; code: string; registeredVoters: number; tables: number }[]; nextCursor: string | null } = await must(
      'GET',
      `/api/gotv/polling-stations?limit=200${stationCursor ? `&cursor=${encodeURIComponent(stationCursor)}` : ''}`,
      manager.token,
    );
    for (const station of page.data)
      if (station.code.startsWith('RNEC-')) stations.push({ id: station.id, code: station.code, registered: station.registeredVoters, tables: station.tables });
    stationCursor = page.nextCursor;
  } while (stationCursor);
  log(`  Cartagena: ${territories.created} territories (its 3 localidades), ${placed.created} real polling stations with their census figures`);

  const rows = ['name,documentId,phone,pollingStationCode,tableNumber,priority'];
  let document = 1_000_000_000 + randomInt(500_000_000);
  // 30,000 confirmed voters over the puestos, in proportion to each one's registered voters.
  const registeredInAll = stations.reduce((sum, station) => sum + station.registered, 0);
  for (const station of stations) {
    const confirmed = Math.max(1, Math.round((30_000 * station.registered) / registeredInAll));
    for (let v = 0; v < confirmed; v++) {
      const priority = Math.random() < 0.15 ? 'high' : Math.random() < 0.18 ? 'low' : 'normal';
      rows.push(`${personName()},${document++},${mobile()},${station.code},${1 + randomInt(station.tables)},${priority}`);
    }
  }
  const imported = await must<{ created: number; rejectedCount: number; rejected: { line: number; message: string }[] }>(
    'POST',
    '/api/gotv/voters/import',
    manager.token,
    rows.join('\n'),
    'text/csv',
  );
  log(`  ${imported.created} confirmed voters imported${imported.rejectedCount ? ` (${imported.rejectedCount} rows refused, e.g. ${imported.rejected[0]?.message})` : ''}`);

  const perBrigade = Math.ceil(stations.length / members.length);
  const plans: StationPlan[] = await inParallel(stations, async (station, i) => {
    const voters: StationPlan['voters'] = [];
    let cursor: string | null = null;
    do {
      const page: { data: { id: string }[]; nextCursor: string | null } = await must(
        'GET',
        `/api/gotv/voters?pollingStationId=${station.id}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        manager.token,
      );
      for (const voter of page.data) voters.push({ id: voter.id, at: Math.random() < 0.68 ? voteMoment() : Infinity, reported: false });
      cursor = page.nextCursor;
    } while (cursor);
    return { ...station, finalTurnout: 0.42 + Math.random() * 0.25, lastCount: 0, member: members[Math.floor(i / perBrigade)]!, voters };
  });
  await inParallel(members, async (member, b) => {
    const own = plans.slice(b * perBrigade, b * perBrigade + perBrigade);
    const brigade = await must<{ id: string }>('POST', '/api/gotv/brigades', manager.token, {
      name: `Brigada ${b + 1} (${RUN})`,
      leaderId: undefined,
      memberIds: [(await must<{ id: string }>('GET', '/api/auth/me', member.token)).id],
      stationIds: own.map((plan) => plan.id),
    });
    await must('POST', `/api/gotv/brigades/${brigade.id}/voters`, manager.token, { voterIds: own.flatMap((plan) => plan.voters.map((voter) => voter.id)) });
  });
  log(`  30 brigades, each with a member, ${perBrigade} stations and their voters`);

  const campaign = await must<{ id: string }>('POST', '/api/poster-qr/campaigns', manager.token, {
    name: `Afiches Medellín ${RUN}`,
    status: 'active',
    landing: {
      title: 'Súmate a la campaña',
      intro: 'Déjanos tus datos y te contamos cómo ayudar el día de elecciones.',
      interests: ['seguridad', 'empleo', 'movilidad', 'educación'],
      consentText:
        'Autorizo a la campaña, responsable del tratamiento, a usar mis datos para informarme de sus propuestas y actividades, según la Ley 1581 de 2012. Puedo conocer, actualizar, rectificar y suprimir mis datos.',
      privacyPolicyUrl: 'https://example.org/privacidad',
    },
  });
  const codes = (await must<{ codes: { code: string }[] }>('POST', `/api/poster-qr/campaigns/${campaign.id}/generate-codes`, manager.token, { count: 20, labelPrefix: 'Afiche' }))
    .codes;
  const leads = Array.from({ length: 150 }, () => ({ name: personName(), phone: mobile() }));
  await inParallel(
    leads,
    (lead, i) =>
      must('POST', '/api/qr-leads/capture', undefined, {
        code: codes[i % codes.length]!.code,
        name: lead.name,
        phone: lead.phone,
        interests: [pick(['seguridad', 'empleo', 'movilidad', 'educación'])],
        email: Math.random() < 0.6 ? `simpatizante${i + 1}-${RUN}@example.org` : undefined,
        consent: true,
        whatsappOptIn: Math.random() < 0.7,
        emailOptIn: Math.random() < 0.8,
      }),
    4,
  );
  log('  a poster campaign with 20 posters and 150 leads');
  await outreach(manager, campaign.id);

  const week = await ordinaryWeek({
    manager,
    desk,
    comunas,
    comunaCodes: COMUNAS.map((_, i) => `DEMO-${RUN}-C${i + 1}`),
    leads,
    secret: webhook === 'signed' ? process.env.WHATSAPP_APP_SECRET!.trim() : undefined,
  });
  log(
    `  the ordinary week in ${week.seconds.toFixed(1)} s: ${week.tagged} people tagged, ${week.notes} notes, ${week.conversations} WhatsApp conversations, ` +
      `${week.pqrs.filed} PQRS requests (${week.pqrs.answered} answered, ${week.pqrs.extended} extended)` +
      (week.pqrs.limited ? `; ${week.pqrs.limited} public filings refused by the server's per-IP limit (PQRS_MAX_PER_IP), try again in an hour` : ''),
  );

  log('\nLogins (password for all: ' + PASSWORD + '):');
  log(`  console    ${BASE}/            ${manager.email} (manager), ${desk.email} (${desk.name}, citizen desk; manager), ${viewer.email} (viewer)`);
  log(`  war room   ${BASE}/war-room/   ${viewer.email} (viewer) or ${manager.email} (manager)`);
  log(`  brigades   ${BASE}/brigada/    ${members[0]!.email} … ${members[29]!.email}`);
  log(`  admin      ${admin.email}`);
  log(`\nWhere to look in the console (${BASE}/, as a manager):`);
  log(
    `  Personas   ${BASE}/personas   ${week.imported.created + week.imported.updated} supporters from a spreadsheet (${week.imported.updated} were poster leads: updated, not doubled), ` +
      `150 poster leads, tags (líder, transporte, voluntario…), notes` +
      (week.duplicatePairs ? `; duplicates: the same cédula from another phone` : ''),
  );
  log(
    week.conversations
      ? `  WhatsApp   ${BASE}/whatsapp   ${week.conversations} conversations and the campaign's replies, ${week.unread.conversations} unread (${week.unread.messages} messages), ` +
          `two assigned to ${desk.name}, one resolved, a BAJA; quick replies /horario, /ubicacion, /gracias`
      : `  WhatsApp   ${BASE}/whatsapp   only the simulator's replies to the campaign (no WHATSAPP_APP_SECRET shared with the server); quick replies /horario, /ubicacion, /gracias`,
  );
  log(
    `  PQRS       the desk in the console's menu: ${week.pqrs.filed} requests across every type, ${week.pqrs.assigned} assigned, ${week.pqrs.answered} answered, ` +
      `${week.pqrs.extended} extended${week.conversations ? ', one from a WhatsApp conversation' : ''} (citizens file at ${BASE}/pqrs)`,
  );
  if (args['no-play']) return;

  // The compressed day: opening a minute from now, closing dayMinutes later, with the default curve's shape.
  const now = localNow();
  const opensAt = Math.ceil(now.minutes) + 1;
  const closesAt = opensAt + dayMinutes;
  if (closesAt >= 24 * 60) throw new Error('Too close to midnight in Bogotá for the day to fit: try a higher --speed, or later.');
  const turnoutCurve = DEFAULT_CURVE.map((fraction, i) => ({ time: hhmm(opensAt + Math.round((i * dayMinutes) / 8)), fraction }));
  await must('PUT', '/api/gotv/settings', manager.token, { electionDate: now.date, opensAt: hhmm(opensAt), closesAt: hhmm(closesAt), turnoutCurve });
  log(`\nElection day today, ${hhmm(opensAt)}–${hhmm(closesAt)} Bogotá time (8 hours played in ${dayMinutes} minutes). Open the war room now.`);

  while (localNow().minutes < opensAt) await new Promise((resolve) => setTimeout(resolve, 1000));
  await inParallel(plans, (plan) => must('PATCH', `/api/gotv/polling-stations/${plan.id}`, manager.token, { status: 'open' }));
  log('Stations open.');
  let reports = 0;
  let incidents = 0;
  let failures = 0;
  const queues = new Map<Session, Record<string, unknown>[]>();
  let lastLog = 0;
  for (;;) {
    const minutes = localNow().minutes;
    const fraction = Math.min(1, (minutes - opensAt) / dayMinutes);
    // Each member sends what their stations have since their last send, as one batch (a phone's queue).
    await inParallel(
      members,
      async (member) => {
        // What an earlier send did not get answered stays queued with its clientReportId, as on a phone.
        const batch = queues.get(member) ?? [];
        queues.set(member, batch);
        for (const plan of plans.filter((candidate) => candidate.member === member)) {
          for (const voter of plan.voters) {
            if (!voter.reported && voter.at <= fraction) {
              voter.reported = true;
              batch.push({ kind: 'voter', clientReportId: randomUUID(), voterId: voter.id });
            }
          }
          const count = Math.round(plan.registered * plan.finalTurnout * curveAt(fraction));
          // Counts come now and then (about every simulated half hour), not with every voter.
          if (count > plan.lastCount && (fraction >= 1 || Math.random() < 0.02 * (SPEED / 30))) {
            plan.lastCount = count;
            batch.push({ kind: 'count', clientReportId: randomUUID(), pollingStationId: plan.id, votersSoFar: count });
          }
        }
        while (batch.length) {
          const sending = batch.slice(0, 500);
          const answer = await call<{ accepted: number }>('POST', '/api/gotv/turnout', member.token, { reports: sending }, 'application/json', 15_000).catch(() => undefined);
          if (!answer || answer.status >= 500) {
            failures++;
            break; // resent next second: the server's idempotency makes that safe
          }
          if (answer.status < 300) reports += answer.body.accepted;
          batch.splice(0, sending.length);
        }
      },
      10,
    );
    if (fraction < 1 && Math.random() < 0.012 * (SPEED / 30)) {
      const plan = pick(plans);
      await call(
        'POST',
        '/api/gotv/incidents',
        plan.member.token,
        {
          pollingStationId: plan.id,
          type: pick(INCIDENTS),
          severity: pick(['low', 'medium', 'high', 'critical']),
          description: 'Reportado por la brigada desde el puesto.',
        },
        'application/json',
        15_000,
      ).then(
        () => incidents++,
        () => failures++,
      );
    }
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      log(`  ${hhmm(8 * 60 + fraction * 480)} (day time): ${reports} reports accepted, ${incidents} incidents${failures ? `, ${failures} sends to retry or lost` : ''}`);
    }
    if (fraction >= 1) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  await inParallel(plans, (plan) => must('PATCH', `/api/gotv/polling-stations/${plan.id}`, manager.token, { status: 'closed' }));
  log(`Polls closed: ${reports} reports, ${incidents} incidents. The war room keeps the day.`);
}

main().then(
  () => {
    if (!args.url) log(`\nThe demo's Comando keeps running at ${BASE}/ for its screens (its data in data/demo); Ctrl-C stops it. The next \`npm run demo\` starts afresh.`);
  },
  (error: unknown) => {
    process.stderr.write(`demo: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
