/**
 * `npm run demo`: fills a running Comando with an election-day campaign and plays the day, through
 * the public API only, as staff and phones would. A Medellín-like city (16 comunas with outlines
 * drawn as a grid: real boundaries would need a download), 300 polling stations, 30,000 confirmed
 * voters, 30 brigades each with a member and 10 stations, a poster campaign with its leads. Then
 * the day is played compressed (`--speed 30`: 8 hours in 16 minutes): stations open, brigade
 * members report voters and counts on the learned curve, incidents happen, stations close.
 *
 *   npm run demo -- [--url http://localhost:3000] [--speed 30] [--no-play]
 *
 * On a fresh Comando the demo's first account becomes its admin; on one that already has accounts,
 * set DEMO_ADMIN_EMAIL and DEMO_ADMIN_PASSWORD. It prints the logins it created.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.DEMO_URL ?? 'http://localhost:3000' },
    speed: { type: 'string', default: '30' },
    'no-play': { type: 'boolean', default: false },
  },
});
const BASE = args.url.replace(/\/+$/, '');
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
  email: string;
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

async function adminSession(): Promise<Session> {
  const email = process.env.DEMO_ADMIN_EMAIL;
  const password = process.env.DEMO_ADMIN_PASSWORD;
  if (email && password) {
    const answer = await must<{ token: string; user: { role: string } }>('POST', '/api/auth/login', undefined, { email, password });
    if (answer.user.role !== 'admin') throw new Error(`${email} is not an admin.`);
    return { email, token: answer.token, role: 'admin' };
  }
  const first = `admin-${RUN}@demo.comando.co`;
  const answer = await must<{ token: string; user: { role: string } }>('POST', '/api/auth/register', undefined, { email: first, password: PASSWORD, name: 'Administración' });
  if (answer.user.role !== 'admin') {
    throw new Error('This Comando already has accounts: set DEMO_ADMIN_EMAIL and DEMO_ADMIN_PASSWORD to an admin of it.');
  }
  return { email: first, token: answer.token, role: 'admin' };
}

async function createUser(admin: Session, role: string, local: string, name: string): Promise<Session> {
  const email = `${local}-${RUN}@demo.comando.co`;
  const answer = await must<{ token: string }>('POST', '/api/auth/register', admin.token, { email, password: PASSWORD, name, role });
  return { email, token: answer.token, role };
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
    fromName: 'Campaña Medellín',
    fromEmail: 'campana@example.org',
    segment: { qrCampaignIds: [qrCampaignId] },
    variants: [{ name: 'A', subject: 'Hoy elegimos', templateId: newsletter.id }],
  });
  await must('POST', `/api/email-marketing/campaigns/${email.id}/send`, manager.token);
  log(`  an email campaign sent to ${email.audienceSize} leads`);
}

async function main(): Promise<void> {
  if (!(SPEED >= 1 && SPEED <= 240)) throw new Error('--speed must be between 1 and 240 (30: an 8-hour day in 16 minutes).');
  const dayMinutes = Math.max(8, Math.round(480 / SPEED));
  const health = await fetch(`${BASE}/api/test`).catch(() => undefined);
  if (!health?.ok) throw new Error(`No Comando answers at ${BASE}: start it with \`npm start\` (or pass --url).`);

  log(`Comando at ${BASE}: building the demo campaign (run ${RUN})…`);
  const admin = await adminSession();
  const manager = await createUser(admin, 'manager', 'coordinacion', 'Coordinación de campaña');
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

  const stations = await inParallel(
    Array.from({ length: 300 }, (_, i) => i),
    async (i) => {
      const comuna = comunas[i % comunas.length]!;
      const code = `D${RUN}-${String(i + 1).padStart(3, '0')}`;
      const registered = 1200 + randomInt(3600);
      const station = await must<{ id: string }>('POST', '/api/gotv/polling-stations', manager.token, {
        code,
        name: `Puesto ${i + 1} · ${comuna.name}`,
        territoryId: comuna.id,
        lat: comuna.south + 0.004 + Math.random() * (cellHeight - 0.008),
        lng: comuna.west + 0.004 + Math.random() * (cellWidth - 0.008),
        tables: Math.ceil(registered / 350),
        registeredVoters: registered,
      });
      return { id: station.id, code, registered };
    },
  );
  log('  300 polling stations');

  const rows = ['name,documentId,phone,pollingStationCode,tableNumber,priority'];
  let document = 1_000_000_000 + randomInt(500_000_000);
  for (const station of stations) {
    for (let v = 0; v < 100; v++) {
      const priority = Math.random() < 0.15 ? 'high' : Math.random() < 0.18 ? 'low' : 'normal';
      rows.push(`${personName()},${document++},${mobile()},${station.code},${1 + randomInt(Math.ceil(station.registered / 350))},${priority}`);
    }
  }
  const imported = await must<{ imported: number; rejectedCount: number; rejected: { line: number; message: string }[] }>(
    'POST',
    '/api/gotv/voters/import',
    manager.token,
    rows.join('\n'),
    'text/csv',
  );
  log(`  ${imported.imported} confirmed voters imported${imported.rejectedCount ? ` (${imported.rejectedCount} rows refused, e.g. ${imported.rejected[0]?.message})` : ''}`);

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
    return { ...station, finalTurnout: 0.42 + Math.random() * 0.25, lastCount: 0, member: members[Math.floor(i / 10)]!, voters };
  });
  await inParallel(members, async (member, b) => {
    const own = plans.slice(b * 10, b * 10 + 10);
    const brigade = await must<{ id: string }>('POST', '/api/gotv/brigades', manager.token, {
      name: `Brigada ${b + 1} (${RUN})`,
      leaderId: undefined,
      memberIds: [(await must<{ id: string }>('GET', '/api/auth/me', member.token)).id],
      stationIds: own.map((plan) => plan.id),
    });
    await must('POST', `/api/gotv/brigades/${brigade.id}/voters`, manager.token, { voterIds: own.flatMap((plan) => plan.voters.map((voter) => voter.id)) });
  });
  log('  30 brigades, each with a member, 10 stations and their voters');

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
  await inParallel(
    Array.from({ length: 150 }, (_, i) => i),
    (i) =>
      must('POST', '/api/qr-leads/capture', undefined, {
        code: codes[i % codes.length]!.code,
        name: personName(),
        phone: mobile(),
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

  log('\nLogins (password for all: ' + PASSWORD + '):');
  log(`  war room   ${BASE}/war-room/   ${viewer.email} (viewer) or ${manager.email} (manager)`);
  log(`  brigades   ${BASE}/brigada/    ${members[0]!.email} … ${members[29]!.email}`);
  log(`  admin      ${admin.email === `admin-${RUN}@demo.comando.co` ? `${admin.email}` : `${admin.email} (yours)`}`);
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

main().catch((error: unknown) => {
  process.stderr.write(`demo: ${(error as Error).message}\n`);
  process.exit(1);
});
