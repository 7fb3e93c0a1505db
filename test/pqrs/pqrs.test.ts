import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addBusinessDays } from '../../src/kernel/business-days';
import { sql } from '../../src/kernel/sql';
import { pqrsCounts, pqrsOpenedClosedBetween } from '../../src/modules/pqrs';
import { runDueSoon, sweepAttachments } from '../../src/modules/pqrs/pqrs.background';
import { deadlineFor, endOfLocalDay, latestExtension, localDateOf } from '../../src/modules/pqrs/pqrs.clock';
import { handleWebhookPayload } from '../../src/modules/whatsapp';
import { startTestApp, type TestApp } from '../helpers/app';
import { FILE_STORES, fileStoreEnv, storedBytes, storedNames } from '../helpers/file-stores';
import { connectSocket, subscribe } from '../helpers/sockets';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

const base = '/api/pqrs';
const clock = { timeZone: 'America/Bogota', holidayCountry: 'CO' };
const today = () => localDateOf(new Date(), clock.timeZone);
const UNKNOWN = '01960000-0000-7000-8000-000000000000';

const PDF = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n');
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('IHDR png bytes')]);
const EXE = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200, 0x90)]);

let app: TestApp;
let admin: TestUser;
let manager: TestUser;
let viewer: TestUser;
let volunteer: TestUser;
let dataDir: string;

/** Starts a process of its own and makes it the one every test below talks to. */
async function startPqrs(overrides: Record<string, string> = {}): Promise<void> {
  app = await startTestApp({ DATA_DIR: dataDir, PQRS_MAX_PER_IP: '100', ...overrides }, { workers: false });
  admin = await registerAdmin(app);
  [manager, viewer, volunteer] = await Promise.all([createUser(app, admin, 'manager'), createUser(app, admin, 'viewer'), createUser(app, admin, 'volunteer')]);
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'comando-pqrs-'));
  await startPqrs();
});

afterAll(async () => {
  await app?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function rows<T>(statement: ReturnType<typeof sql<T>>): Promise<T[]> {
  return app.runtime.deps.db.rows(statement);
}

let phoneCounter = 100;
function citizen(overrides: Record<string, unknown> = {}) {
  phoneCounter += 1;
  return {
    type: 'peticion',
    subject: 'Alumbrado público',
    description: 'La calle 10 lleva dos semanas sin alumbrado público.',
    name: 'Ana Pérez',
    phone: `300 555 ${String(phoneCounter).padStart(4, '0')}`,
    consent: true,
    whatsappOptIn: true,
    ...overrides,
  };
}

async function file(overrides: Record<string, unknown> = {}) {
  const response = await app.http.post(base).send(citizen(overrides));
  expect(response.status).toBe(201);
  return response.body as { id: string; number: string; dueDate: string; dueAt: string; businessDaysLeft: number; uploadToken: string };
}

/** Moves a request's filing and deadline as if it had been filed on `day` (the clock is tested by hand in clock.unit.test.ts). */
async function refile(id: string, day: string, type: 'peticion' | 'informacion' | 'consulta' = 'peticion') {
  const receivedAt = new Date(`${day}T10:00:00-05:00`);
  const deadline = deadlineFor(receivedAt, type, clock);
  await app.runtime.deps.db.write(
    sql`update pqrs_requests set received_at = ${receivedAt}, term_days = ${deadline.termDays}, original_due_date = ${deadline.dueDate},
      due_date = ${deadline.dueDate}, due_at = ${deadline.dueAt} where id = ${id}::uuid`,
  );
  return deadline;
}

describe('public filing', () => {
  it('files a request with a yearly number, the legal deadline and the consent proof', async () => {
    const response = await app.http
      .post(base)
      .set('User-Agent', 'jest')
      .send(citizen({ email: 'Ana@Example.org', emailOptIn: true }));
    expect(response.status).toBe(201);
    const filed = response.body;
    const year = today().slice(0, 4);
    expect(filed).toMatchObject({ type: 'peticion', status: 'received', uploadToken: expect.any(String) });
    expect(filed.number).toMatch(new RegExp(`^PQRS-${year}-\\d{6}$`));
    expect(filed.dueDate).toBe(addBusinessDays(today(), 15, 'CO'));
    expect(filed.dueAt).toBe(endOfLocalDay(filed.dueDate, clock.timeZone).toISOString());
    expect(filed.businessDaysLeft).toBe(15);

    const [stored] = await rows(
      sql<{ channel: string; contact_id: string; anonymous: boolean }>`select channel, contact_id, anonymous from pqrs_requests where id = ${filed.id}::uuid`,
    );
    expect(stored).toMatchObject({ channel: 'web', anonymous: false, contact_id: expect.any(String) });
    const [proof] = await rows(
      sql<{ source: string; source_ref: string; ip_hash: string; user_agent: string; text: string; whatsapp_opt_in: boolean; email_opt_in: boolean; email: string }>`
        select k.source, k.source_ref, k.ip_hash, k.user_agent, t.text, k.whatsapp_opt_in, k.email_opt_in, c.email
        from consents k join consent_texts t on t.id = k.text_id join contacts c on c.id = k.contact_id where k.contact_id = ${stored!.contact_id}::uuid`,
    );
    expect(proof).toMatchObject({ source: 'pqrs', source_ref: filed.id, user_agent: 'jest', whatsapp_opt_in: true, email_opt_in: true, email: 'ana@example.org' });
    expect(proof!.ip_hash).toMatch(/^[0-9a-f]{32}$/);
    expect(proof!.text).toMatch(/^Autorizo el tratamiento/);
    const origins = await rows(sql<{ kind: string }>`select kind from contact_origins where contact_id = ${stored!.contact_id}::uuid`);
    expect(origins.map((origin) => origin.kind)).toEqual(['pqrs']);
    const history = await app.http.get(`${base}/${filed.id}/history`).set(manager.auth).expect(200);
    expect(history.body.data).toEqual([
      expect.objectContaining({ action: 'filed', actorId: null }),
      expect.objectContaining({ action: 'notice', changes: { receivedNotice: { before: null, after: expect.objectContaining({ status: 'queued', channel: 'email' }) } } }),
    ]);
  });

  it('takes an anonymous denuncia with no personal data, and refuses anonymity for any other type', async () => {
    const response = await app.http
      .post(base)
      .send({
        type: 'denuncia',
        subject: 'Compra de votos',
        description: 'En la vereda ofrecen mercados a cambio del voto.',
        anonymous: true,
        name: 'Ignored',
        phone: '3005550000',
      })
      .expect(201);
    const [stored] = await rows(sql<{ contact_id: string | null; anonymous: boolean }>`select contact_id, anonymous from pqrs_requests where id = ${response.body.id}::uuid`);
    expect(stored).toEqual({ contact_id: null, anonymous: true });
    const refused = expectProblem(await app.http.post(base).send(citizen({ anonymous: true })), 400, 'validation_failed');
    expect(refused.errors).toEqual([{ path: 'body.anonymous', message: 'Solo una denuncia puede presentarse de forma anónima.' }]);
  });

  it('gives gapless sequential numbers to concurrent filings', async () => {
    const before = await rows(sql<{ last: number }>`select last from pqrs_counters`);
    const start = before[0]?.last ?? 0;
    const filed = await Promise.all(Array.from({ length: 25 }, () => app.http.post(base).send(citizen())));
    for (const response of filed) expect(response.status).toBe(201);
    const sequences = filed.map((response) => Number((response.body.number as string).slice(-6))).sort((a, b) => a - b);
    expect(sequences).toEqual(Array.from({ length: 25 }, (_, index) => start + index + 1));
    const [gaps] = await rows(sql<{ count: number; max: number }>`select count(*)::int as count, max(sequence) as max from pqrs_requests`);
    expect(gaps).toEqual({ count: gaps!.max, max: gaps!.max });
  });

  it('lists every problem of a bad filing at once, in Spanish', async () => {
    const response = await app.http.post(base).send({ type: 'otro', subject: 'x', description: 'corto', phone: '12', email: 'no-es-correo', documentId: 'abc' });
    const problem = expectProblem(response, 400, 'validation_failed');
    const paths = (problem.errors as { path: string }[]).map((error) => error.path).sort();
    expect(paths).toEqual(['body.consent', 'body.description', 'body.documentId', 'body.email', 'body.name', 'body.phone', 'body.subject', 'body.type']);
    const missing = expectProblem(await app.http.post(base).send({ type: 'queja', subject: 'Ruido', description: 'Hay ruido todas las noches en el parque.' }), 400);
    expect((missing.errors as { path: string }[]).map((error) => error.path).sort()).toEqual(['body.consent', 'body.name', 'body.phone']);
    expectProblem(await app.http.post(base).send(citizen({ consent: false })), 400, 'consent_required');
    expectProblem(await app.http.post(base).send(citizen({ phone: '123' })), 400, 'validation_failed');
    expectProblem(await app.http.post(base).send(citizen({ territoryId: UNKNOWN })), 400);
    expectProblem(await app.http.post(base).set('Content-Type', 'text/plain').send('hola'), 415);
    expectProblem(await app.http.post(base).set('Content-Type', 'application/json').send('{"type":'), 400);
    expectProblem(await app.http.post(base).send(citizen({ channel: 'presencial' })), 403);
    expectProblem(
      await app.http
        .post(base)
        .set(viewer.auth)
        .send(citizen({ channel: 'presencial' })),
      403,
    );
    expectProblem(
      await app.http
        .post(base)
        .set(manager.auth)
        .send(citizen({ channel: 'fax' })),
      400,
    );
  });

  it('lets staff file what reached them in person, unlimited by the public rate limit', async () => {
    const response = await app.http
      .post(base)
      .set(manager.auth)
      .send(citizen({ channel: 'presencial', type: 'consulta' }))
      .expect(201);
    expect(response.body.businessDaysLeft).toBe(30);
    const one = await app.http.get(`${base}/${response.body.id}`).set(manager.auth).expect(200);
    expect(one.body).toMatchObject({ channel: 'presencial', termDays: 30 });
    const [proof] = await rows(sql<{ source: string; ip_hash: string | null }>`select source, ip_hash from consents where source_ref = ${response.body.id}::uuid`);
    expect(proof).toEqual({ source: 'pqrs_staff', ip_hash: null });
  });
});

describe('reading', () => {
  it('shows managers the citizen and the texts, viewers neither', async () => {
    const filed = await file({ email: 'luis@example.org', name: 'Luis Gómez' });
    const asManager = await app.http.get(`${base}/${filed.id}`).set(manager.auth).expect(200);
    expect(asManager.body.personal).toMatchObject({
      citizen: { name: 'Luis Gómez', email: 'luis@example.org', phone: expect.stringMatching(/^\+57300555/) },
      description: expect.stringContaining('alumbrado'),
      answer: null,
      attachments: [],
    });
    expect(asManager.body).toMatchObject({ number: filed.number, overdue: false, dueSoon: false, businessDaysLeft: 15, extension: null });
    const asViewer = await app.http.get(`${base}/${filed.id}`).set(viewer.auth).expect(200);
    expect(asViewer.body.personal).toBeNull();
    expect(asViewer.body.number).toBe(filed.number);
    const list = await app.http.get(base).set(viewer.auth).query({ limit: 200 }).expect(200);
    expect(list.body.data.every((request: { personal: unknown }) => request.personal === null)).toBe(true);
    expectProblem(await app.http.get(base).set(viewer.auth).query({ contactId: UNKNOWN }), 403);
  });

  it('pages newest first with a cursor', async () => {
    const first = await app.http.get(base).set(manager.auth).query({ limit: 3 }).expect(200);
    expect(first.body.data).toHaveLength(3);
    const second = await app.http.get(base).set(manager.auth).query({ limit: 3, cursor: first.body.nextCursor }).expect(200);
    const ids = [...first.body.data, ...second.body.data].map((request: { id: string }) => request.id);
    expect(new Set(ids).size).toBe(6);
    const times = [...first.body.data, ...second.body.data].map((request: { receivedAt: string }) => request.receivedAt);
    expect([...times].sort().reverse()).toEqual(times);
    expectProblem(await app.http.get(base).set(manager.auth).query({ cursor: 'bm9wZQ' }), 400);
  });
});

describe('the desk’s work', () => {
  it('assigns, moves and records every change with its note; closed is final', async () => {
    const filed = await file();
    const changed = await app.http
      .patch(`${base}/${filed.id}`)
      .set(manager.auth)
      .send({ assigneeId: manager.id, status: 'in_progress', priority: 'high', note: 'Urgente: barrio sin luz' })
      .expect(200);
    expect(changed.body).toMatchObject({ assigneeId: manager.id, status: 'in_progress', priority: 'high' });
    expectProblem(await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ assigneeId: viewer.id }), 400, 'assignee_cannot_handle');
    expectProblem(await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ assigneeId: UNKNOWN }), 400, 'unknown_user');
    expectProblem(await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ status: 'closed' }), 400, 'note_required');
    expectProblem(await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ status: 'answered' }), 400);
    expectProblem(await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ note: 'nothing else' }), 400);
    expectProblem(await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ territoryId: UNKNOWN }), 400);
    await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ status: 'closed', note: 'Duplicada de otra solicitud' }).expect(200);
    expectProblem(await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ priority: 'low' }), 409, 'request_closed');
    const history = await app.http.get(`${base}/${filed.id}/history`).set(manager.auth).expect(200);
    expect(history.body.data.map((row: { action: string }) => row.action)).toEqual(['filed', 'notice', 'update', 'update']);
    expect(history.body.data[2]).toMatchObject({
      actorId: manager.id,
      note: 'Urgente: barrio sin luz',
      changes: { status: { before: 'received', after: 'in_progress' }, assigneeId: { before: null, after: manager.id }, priority: { before: 'normal', after: 'high' } },
    });
    const asViewer = await app.http.get(`${base}/${filed.id}/history`).set(viewer.auth).expect(200);
    expect(asViewer.body.data[2].note).toBeNull();
  });

  it('reclassifies with the new legal term', async () => {
    const filed = await file();
    const changed = await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ type: 'informacion' }).expect(200);
    expect(changed.body).toMatchObject({ type: 'informacion', termDays: 10, dueDate: addBusinessDays(today(), 10, 'CO'), originalDueDate: addBusinessDays(today(), 10, 'CO') });
  });

  it('answers once, stopping the clock, and tells whether it was late', async () => {
    const filed = await file();
    const answered = await app.http.post(`${base}/${filed.id}/answer`).set(manager.auth).send({ answer: 'La empresa de energía repara la red el lunes.' }).expect(200);
    expect(answered.body).toMatchObject({ status: 'answered', answeredLate: false, overdue: false, personal: { answer: 'La empresa de energía repara la red el lunes.' } });
    expectProblem(await app.http.post(`${base}/${filed.id}/answer`).set(manager.auth).send({ answer: 'Otra respuesta distinta.' }), 409, 'already_answered');
    expectProblem(await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ status: 'in_progress' }), 409, 'invalid_transition');
    await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ status: 'closed' }).expect(200);

    const late = await file();
    await refile(late.id, '2026-03-30');
    const lateAnswer = await app.http.post(`${base}/${late.id}/answer`).set(manager.auth).send({ answer: 'Respuesta tardía, con disculpas.', close: true }).expect(200);
    expect(lateAnswer.body).toMatchObject({ status: 'closed', answeredLate: true, overdue: false, closedAt: expect.any(String) });
    expect(lateAnswer.body.businessDaysLeft).toBeLessThan(0);
    expectProblem(await app.http.post(`${base}/${late.id}/answer`).set(manager.auth).send({ answer: 'Una más, ya cerrada.' }), 409, 'request_closed');
    expectProblem(await app.http.post(`${base}/${filed.id}/answer`).set(manager.auth).send({ answer: 'corta' }), 400);
  });

  it('extends once, before the deadline, with a reason, to at most twice the term', async () => {
    const filed = await file();
    const latest = latestExtension(new Date(), 15, clock);
    const url = `${base}/${filed.id}/extend`;
    const reason = 'Se requiere concepto de la secretaría de obras.';
    expectProblem(
      await app.http
        .post(url)
        .set(manager.auth)
        .send({ newDueDate: addBusinessDays(latest, 1, 'CO'), reason }),
      400,
      'extension_beyond_double',
    );
    expectProblem(await app.http.post(url).set(manager.auth).send({ newDueDate: filed.dueDate, reason }), 400, 'extension_not_later');
    expectProblem(await app.http.post(url).set(manager.auth).send({ newDueDate: latest, reason: 'corto' }), 400);
    expectProblem(await app.http.post(url).set(manager.auth).send({ newDueDate: '25/11/2026', reason }), 400);
    const extended = await app.http.post(url).set(manager.auth).send({ newDueDate: latest, reason }).expect(200);
    expect(extended.body).toMatchObject({
      dueDate: latest,
      originalDueDate: filed.dueDate,
      extension: { reason, byId: manager.id },
      dueAt: endOfLocalDay(latest, clock.timeZone).toISOString(),
    });
    expectProblem(await app.http.post(url).set(manager.auth).send({ newDueDate: latest, reason }), 409, 'already_extended');
    const asViewer = await app.http.get(`${base}/${filed.id}`).set(viewer.auth).expect(200);
    expect(asViewer.body.extension).toEqual({ at: extended.body.extension.at, reason: null, byId: manager.id });
    expectProblem(await app.http.patch(`${base}/${filed.id}`).set(manager.auth).send({ type: 'consulta' }), 409, 'already_extended');
    const history = await app.http.get(`${base}/${filed.id}/history`).set(manager.auth).expect(200);
    expect(history.body.data.filter((row: { action: string }) => row.action !== 'notice').at(-1)).toMatchObject({
      action: 'extend',
      note: reason,
      changes: { dueDate: { before: filed.dueDate, after: latest } },
    });
  });

  it('refuses an extension once the deadline has passed, and one to a non-business day', async () => {
    const late = await file();
    await refile(late.id, '2026-03-30');
    expectProblem(
      await app.http.post(`${base}/${late.id}/extend`).set(manager.auth).send({ newDueDate: '2026-05-14', reason: 'Se pidió demasiado tarde.' }),
      409,
      'deadline_passed',
    );
    const fresh = await file();
    let weekend = addBusinessDays(today(), 17, 'CO');
    while (![0, 6].includes(new Date(`${weekend}T12:00:00Z`).getUTCDay())) weekend = new Date(Date.parse(`${weekend}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expectProblem(await app.http.post(`${base}/${fresh.id}/extend`).set(manager.auth).send({ newDueDate: weekend, reason: 'Un fin de semana no sirve.' }), 400, 'not_business_day');
    const answered = await file();
    await app.http.post(`${base}/${answered.id}/answer`).set(manager.auth).send({ answer: 'Respondida antes de prorrogar.' }).expect(200);
    expectProblem(
      await app.http
        .post(`${base}/${answered.id}/extend`)
        .set(manager.auth)
        .send({ newDueDate: latestExtension(new Date(), 15, clock), reason: 'Ya no aplica.' }),
      409,
      'request_not_open',
    );
  });
});

describe('filters and figures', () => {
  it('filters by overdue, due soon, due before, status, type, assignee and territory (with the territories inside it)', async () => {
    const commune = await app.http.post('/api/territories').set(manager.auth).send({ name: 'Comuna 4', type: 'commune' }).expect(201);
    const barrio = await app.http.post('/api/territories').set(manager.auth).send({ name: 'Aranjuez', type: 'neighbourhood', parentId: commune.body.id }).expect(201);
    const overdue = await file({ type: 'reclamo', territoryId: barrio.body.id });
    await refile(overdue.id, '2026-03-30');
    const soon = await file({ type: 'reclamo' });
    const soonDue = addBusinessDays(today(), 1, 'CO');
    await app.runtime.deps.db.write(sql`update pqrs_requests set due_date = ${soonDue}, due_at = ${endOfLocalDay(soonDue, clock.timeZone)} where id = ${soon.id}::uuid`);
    await app.http.patch(`${base}/${soon.id}`).set(manager.auth).send({ assigneeId: manager.id }).expect(200);

    const ids = async (query: Record<string, string>) => {
      const response = await app.http
        .get(base)
        .set(manager.auth)
        .query({ limit: '200', ...query })
        .expect(200);
      return (response.body.data as { id: string }[]).map((request) => request.id);
    };
    const overdueIds = await ids({ overdue: 'true' });
    expect(overdueIds).toContain(overdue.id);
    expect(overdueIds).not.toContain(soon.id);
    const one = await app.http.get(`${base}/${overdue.id}`).set(manager.auth).expect(200);
    expect(one.body).toMatchObject({ overdue: true, dueSoon: false });
    expect(await ids({ overdue: 'false' })).not.toContain(overdue.id);
    expect(await ids({ dueSoon: 'true' })).toEqual([soon.id]);
    expect(await ids({ dueBefore: soonDue, type: 'reclamo' })).toEqual([soon.id, overdue.id]);
    expect(await ids({ territoryId: commune.body.id })).toEqual([overdue.id]);
    expect(await ids({ assigneeId: manager.id, status: 'received' })).toContain(soon.id);
    expect(await ids({ unassigned: 'true' })).not.toContain(soon.id);
    expect(await ids({ status: 'closed', type: 'reclamo' })).toEqual([]);

    const counts = await pqrsCounts(app.runtime.deps.db, new Date(), clock);
    const [recount] = await rows(
      sql<{ pending: number; overdue: number }>`select count(*)::int as pending, count(*) filter (where due_at < now())::int as overdue
        from pqrs_requests where status in ('received', 'in_progress', 'waiting_citizen')`,
    );
    expect(counts).toMatchObject({ pending: recount!.pending, overdue: recount!.overdue });
    expect(counts.dueSoon).toBeGreaterThanOrEqual(1);
  });

  it('counts requests opened and resolved per local day, zero-filled', async () => {
    const days = await pqrsOpenedClosedBetween(app.runtime.deps.db, '2026-03-29', today(), clock.timeZone);
    expect(days[0]).toEqual({ day: '2026-03-29', opened: 0, closed: 0 });
    expect(days.find((day) => day.day === '2026-03-30')!.opened).toBeGreaterThanOrEqual(2);
    const [recount] = await rows(sql<{ n: number }>`select count(*)::int as n from pqrs_requests where received_at >= '2026-03-29T05:00:00Z'`);
    expect(days.reduce((sum, day) => sum + day.opened, 0)).toBe(recount!.n);
    const [resolved] = await rows(sql<{ n: number }>`select count(*)::int as n from pqrs_requests where coalesce(answered_at, closed_at) is not null`);
    expect(days.reduce((sum, day) => sum + day.closed, 0)).toBe(resolved!.n);
    expect(days.at(-1)!.day).toBe(today());
  });

  it('flags requests due within two business days once a day, across processes, and tells the pqrs room', async () => {
    const socket = await connectSocket(app.url, viewer.token);
    const events: { action: string; id: string }[] = [];
    socket.on('pqrs:request', (event) => events.push(event));
    expect((await subscribe(socket, ['pqrs'])).joined).toEqual(['pqrs']);
    try {
      const soon = await file();
      const due = addBusinessDays(today(), 2, 'CO');
      await app.runtime.deps.db.write(sql`update pqrs_requests set due_date = ${due}, due_at = ${endOfLocalDay(due, clock.timeZone)} where id = ${soon.id}::uuid`);
      await until(() => events.find((event) => event.id === soon.id && event.action === 'filed'));
      const sibling = await app.sibling();
      const runs = await Promise.all([runDueSoon(app.runtime.deps), runDueSoon(sibling.runtime.deps)]);
      expect(runs.filter(Boolean)).toHaveLength(1);
      expect(await runDueSoon(app.runtime.deps)).toBe(false);
      const flagged = await app.http.get(`${base}/${soon.id}`).set(manager.auth).expect(200);
      expect(flagged.body).toMatchObject({ dueSoon: true, dueSoonFlaggedAt: expect.any(String) });
      await until(() => events.find((event) => event.id === soon.id && event.action === 'due_soon'));
      const history = await app.http.get(`${base}/${soon.id}/history`).set(manager.auth).expect(200);
      expect(history.body.data.map((row: { action: string }) => row.action)).toEqual(['filed', 'notice', 'due_soon']);
      expect(JSON.stringify(events)).not.toMatch(/Ana Pérez|alumbrado/);
    } finally {
      socket.close();
    }
    await expect(connectSocket(app.url, volunteer.token).then(async (socket) => (await subscribe(socket, ['pqrs'])).denied.length)).resolves.toBe(1);
  });
});

describe('WhatsApp conversion', () => {
  it('turns an inbound conversation into a request of its contact, with the messages as description', async () => {
    const payload = (text: string) => ({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'waba',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                contacts: [{ wa_id: '573005559911', profile: { name: 'Rosa' } }],
                messages: [
                  {
                    from: '573005559911',
                    id: `wamid.${Math.random().toString(36).slice(2)}`,
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    type: 'text',
                    text: { body: text },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    await handleWebhookPayload(app.runtime.deps, payload('Hola, el parque del barrio no tiene luz.'));
    await handleWebhookPayload(app.runtime.deps, payload('Hace un mes que lo reportamos.'));
    const [conversation] = await rows(
      sql<{ id: string; contact_id: string }>`select w.id, w.contact_id from wa_conversations w join contacts c on c.id = w.contact_id where c.phone = '+573005559911'`,
    );
    const response = await app.http
      .post(`${base}/from-whatsapp`)
      .set(manager.auth)
      .send({ conversationId: conversation!.id, type: 'queja', subject: 'Parque sin luz' })
      .expect(201);
    expect(response.body).toMatchObject({
      channel: 'whatsapp',
      type: 'queja',
      conversationId: conversation!.id,
      personal: {
        citizen: { contactId: conversation!.contact_id, phone: '+573005559911' },
        description: 'Hola, el parque del barrio no tiene luz.\n\nHace un mes que lo reportamos.',
      },
    });
    const given = await app.http
      .post(`${base}/from-whatsapp`)
      .set(manager.auth)
      .send({ conversationId: conversation!.id, type: 'informacion', subject: 'Horario', description: 'Pide el horario de atención.', priority: 'low' })
      .expect(201);
    expect(given.body).toMatchObject({ termDays: 10, priority: 'low', personal: { description: 'Pide el horario de atención.' } });
    expect(Number(given.body.number.slice(-6))).toBe(Number(response.body.number.slice(-6)) + 1);

    expectProblem(await app.http.post(`${base}/from-whatsapp`).set(manager.auth).send({ conversationId: UNKNOWN, type: 'queja', subject: 'Nada' }), 400, 'unknown_conversation');
    expectProblem(await app.http.post(`${base}/from-whatsapp`).set(manager.auth).send({ conversationId: 'x', type: 'queja', subject: 'Nada' }), 400);
    expectProblem(await app.http.post(`${base}/from-whatsapp`).set(manager.auth).send({ conversationId: conversation!.id, type: 'queja', subject: 'Nada', extra: 1 }), 400);
    expectProblem(await app.http.post(`${base}/from-whatsapp`).set(viewer.auth).send({ conversationId: conversation!.id, type: 'queja', subject: 'Nada' }), 403);
    expectProblem(await app.http.post(`${base}/from-whatsapp`).send({ conversationId: conversation!.id, type: 'queja', subject: 'Nada' }), 401);
  });
});

describe('citizen notices', () => {
  async function approveTemplate(name: string, placeholders: number) {
    const body = Array.from({ length: placeholders }, (_, index) => `{{${index + 1}}}`).join(' ');
    await app.runtime.deps.db.write(sql`
      insert into wa_templates (id, name, language, category, body, buttons, examples, placeholders, status, created_at, updated_at)
      values (gen_random_uuid(), ${name}, 'es', 'UTILITY', ${body}, '[]', '[]', ${placeholders}, 'APPROVED', now(), now())
      on conflict (name, language) do nothing`);
  }

  const noticeRows = (contactId: string) =>
    rows(sql<{ purpose: string; key: string }>`select purpose, key from notices where contact_id = ${contactId}::uuid order by created_at, id`);

  it('sends the number on filing, the new date on an extension and the answer, each once, on the channel the citizen agreed to', async () => {
    const filed = await file({ phone: undefined, email: 'rosa@example.org', emailOptIn: true, whatsappOptIn: false });
    const one = await app.http.get(`${base}/${filed.id}`).set(manager.auth).expect(200);
    expect(one.body.personal.receivedNotice).toMatchObject({ status: 'queued', channel: 'email', noticeId: expect.any(String) });
    const contactId = one.body.personal.citizen.contactId as string;
    const reason = 'Esperamos el concepto de la secretaría.';
    await app.http
      .post(`${base}/${filed.id}/extend`)
      .set(manager.auth)
      .send({ newDueDate: latestExtension(new Date(), 15, clock), reason })
      .expect(200);
    const answer = 'La secretaría programó la reparación.\nGracias por avisar.';
    const answered = await app.http.post(`${base}/${filed.id}/answer`).set(manager.auth).send({ answer }).expect(200);
    expect(answered.body.personal).toMatchObject({ extensionNotice: { status: 'queued', channel: 'email' }, answerNotice: { status: 'queued', channel: 'email' } });
    expect(await noticeRows(contactId)).toEqual([
      { purpose: 'pqrs.received', key: `pqrs:received:${filed.id}` },
      { purpose: 'pqrs.extended', key: `pqrs:extended:${filed.id}` },
      { purpose: 'pqrs.answered', key: `pqrs:answered:${filed.id}` },
    ]);
    const emails = await rows(sql<{ subject: string; text: string }>`select subject, text from email_notices where contact_id = ${contactId}::uuid order by id`);
    expect(emails.map((email) => email.subject)).toEqual([
      `Radicamos su solicitud ${filed.number}`,
      `Ampliamos el plazo de su solicitud ${filed.number}`,
      `Respuesta a su solicitud ${filed.number}`,
    ]);
    expect(emails[1]!.text).toContain(reason);
    expect(emails[2]!.text).toContain(answer);
    const listed = await app.http.get('/api/notices').set(manager.auth).query({ contactId }).expect(200);
    expect(listed.body.data).toHaveLength(3);
  });

  it('uses the WhatsApp template once approved, says why when nothing can carry it, and sends nothing for an anonymous denuncia', async () => {
    const unreachable = await file({ whatsappOptIn: true });
    const before = await app.http.get(`${base}/${unreachable.id}`).set(manager.auth).expect(200);
    expect(before.body.personal.receivedNotice).toMatchObject({ status: 'unreachable', reason: 'template_missing' });
    await approveTemplate('pqrs_recibida', 2);
    const filed = await file({ whatsappOptIn: true });
    const one = await app.http.get(`${base}/${filed.id}`).set(manager.auth).expect(200);
    expect(one.body.personal.receivedNotice).toMatchObject({ status: 'queued', channel: 'whatsapp' });
    const [message] = await rows(
      sql<{ params: string[] }>`select m.params from wa_messages m join notices n on n.message_ref = m.id::text where n.key = ${`pqrs:received:${filed.id}`}`,
    );
    expect(message!.params).toEqual([filed.number, expect.stringMatching(/^[a-zé]+, \d{1,2} de [a-z]+ de \d{4}$/)]);
    const silent = await file({ whatsappOptIn: false });
    const silentOne = await app.http.get(`${base}/${silent.id}`).set(manager.auth).expect(200);
    expect(silentOne.body.personal.receivedNotice).toMatchObject({ status: 'unreachable', reason: 'no_consent' });
    const anonymous = await app.http
      .post(base)
      .send({ type: 'denuncia', subject: 'Amenazas', description: 'Amenazan a los líderes de la junta comunal.', anonymous: true })
      .expect(201);
    const stored = await app.http.get(`${base}/${anonymous.body.id}`).set(manager.auth).expect(200);
    expect(stored.body.personal).toMatchObject({ citizen: null, receivedNotice: { status: 'unreachable', reason: 'anonymous', noticeId: null } });
    expect(await rows(sql<{ n: number }>`select count(*)::int as n from notices where key = ${`pqrs:received:${anonymous.body.id}`}`)).toEqual([{ n: 0 }]);
  });
});

describe.each(FILE_STORES)('on the %s file store', (store) => {
  let main: { app: TestApp; admin: TestUser; manager: TestUser; viewer: TestUser; volunteer: TestUser };
  beforeAll(async () => {
    if (store === 'local') return;
    main = { app, admin, manager, viewer, volunteer };
    await startPqrs(await fileStoreEnv(store));
  });
  afterAll(async () => {
    if (store === 'local') return;
    await app.close();
    ({ app, admin, manager, viewer, volunteer } = main);
  });

  describe('attachments', () => {
    it('takes a PDF from the filer with the upload token, and refuses a 20 MB file, a program and a wrong type', async () => {
      const filed = await file();
      const url = `${base}/${filed.id}/attachments`;
      const stored = await app.http
        .post(url)
        .query({ fileName: 'C:\\fotos\\recibo luz.pdf' })
        .set('X-Upload-Token', filed.uploadToken)
        .set('Content-Type', 'application/pdf')
        .send(PDF)
        .expect(201);
      expect(stored.body).toMatchObject({ fileName: 'recibo luz.pdf', type: 'application/pdf', size: PDF.length });
      expect(await storedBytes(app.runtime.deps.files, 'pqrs/attachments', stored.body.id)).toEqual(PDF);

      const big = Buffer.alloc(20 * 1024 * 1024, 0x20);
      PDF.copy(big);
      expectProblem(await app.http.post(url).set(manager.auth).set('Content-Type', 'application/pdf').send(big), 413, 'payload_too_large');
      expectProblem(await app.http.post(url).set(manager.auth).set('Content-Type', 'application/pdf').send(EXE), 415, 'executable_refused');
      expectProblem(await app.http.post(url).set(manager.auth).set('Content-Type', 'application/x-msdownload').send(EXE), 415);
      expectProblem(await app.http.post(url).set(manager.auth).set('Content-Type', 'image/png').send(PDF), 415, 'attachment_type_mismatch');
      expectProblem(await app.http.post(url).set(manager.auth).set('Content-Type', 'image/jpeg').send(Buffer.from('not a jpeg')), 415, 'attachment_type_mismatch');
      expectProblem(await app.http.post(url).set(manager.auth).set('Content-Type', 'application/pdf').send(Buffer.alloc(0)), 400);
      expectProblem(await app.http.post(url).set('Content-Type', 'application/pdf').send(PDF), 401);
      expectProblem(await app.http.post(url).set('X-Upload-Token', 'wrong').set('Content-Type', 'application/pdf').send(PDF), 403);
      expectProblem(await app.http.post(url).set(viewer.auth).set('Content-Type', 'application/pdf').send(PDF), 403);
      expectProblem(await app.http.post(`${base}/${UNKNOWN}/attachments`).set(manager.auth).set('Content-Type', 'application/pdf').send(PDF), 404);
      expectProblem(await app.http.post(url).set(manager.auth).query({ other: '1' }).set('Content-Type', 'application/pdf').send(PDF), 400);
      await app.http.post(url).set(manager.auth).set('Content-Type', 'image/png').send(PNG).expect(201);
      expect(await storedNames(app.runtime.deps.files, 'pqrs/attachments')).toHaveLength(2);

      const downloaded = await app.http.get(`${url}/${stored.body.id}`).set(manager.auth).buffer(true).expect(200);
      expect(downloaded.headers['content-type']).toBe('application/pdf');
      expect(Buffer.from(downloaded.body as Buffer)).toEqual(PDF);
      expectProblem(await app.http.get(`${url}/${stored.body.id}`).set(viewer.auth), 403);
      expectProblem(await app.http.get(`${url}/${UNKNOWN}`).set(manager.auth), 404);
      const one = await app.http.get(`${base}/${filed.id}`).set(manager.auth).expect(200);
      expect(one.body.personal.attachments.map((attachment: { type: string }) => attachment.type)).toEqual(['application/pdf', 'image/png']);
    });

    it('names each stored file by the type its bytes are, not by the extension it was sent with', async () => {
      const filed = await file();
      const url = `${base}/${filed.id}/attachments`;
      const attach = async (bytes: Buffer, type: string, fileName?: string) =>
        (
          await app.http
            .post(url)
            .query(fileName === undefined ? {} : { fileName })
            .set(manager.auth)
            .set('Content-Type', type)
            .send(bytes)
            .expect(201)
        ).body as { id: string; fileName: string };
      const disguised = await attach(PDF, 'application/pdf', 'factura.html');
      expect(disguised.fileName).toBe('factura.pdf');
      const downloaded = await app.http.get(`${url}/${disguised.id}`).set(manager.auth).buffer(true).expect(200);
      expect(downloaded.headers['content-type']).toBe('application/pdf');
      expect(downloaded.headers['content-disposition']).toBe('attachment; filename="factura.pdf"');
      expect((await attach(PNG, 'image/png', 'foto.PDF')).fileName).toBe('foto.png');
      expect((await attach(PDF, 'application/pdf', 'Acta 12.03.2026')).fileName).toBe('Acta 12.03.2026.pdf');
      expect((await attach(PDF, 'application/pdf')).fileName).toBe('adjunto.pdf');
      expect((await attach(PDF, 'application/pdf', 'informe.docx')).fileName).toBe('informe.pdf');
    });

    it('stops the token working after 24 hours and on another request', async () => {
      const [first, second] = [await file(), await file()];
      expectProblem(await app.http.post(`${base}/${second.id}/attachments`).set('X-Upload-Token', first.uploadToken).set('Content-Type', 'application/pdf').send(PDF), 403);
      await app.runtime.deps.db.write(sql`update pqrs_requests set upload_token_expires_at = now() - interval '1 second' where id = ${first.id}::uuid`);
      expectProblem(await app.http.post(`${base}/${first.id}/attachments`).set('X-Upload-Token', first.uploadToken).set('Content-Type', 'application/pdf').send(PDF), 403);
    });
  });

  describe('a person’s data', () => {
    it('exports the citizen’s requests and erases their texts and attachments, keeping the figures', async () => {
      const filed = await file({ description: 'Mi vecino Pedro Ruiz vende votos en la tienda.' });
      await app.http.post(`${base}/${filed.id}/attachments`).set('X-Upload-Token', filed.uploadToken).set('Content-Type', 'application/pdf').send(PDF).expect(201);
      await app.http.post(`${base}/${filed.id}/answer`).set(manager.auth).send({ answer: 'Trasladamos su denuncia a la Registraduría.' }).expect(200);
      const [stored] = await rows(sql<{ contact_id: string }>`select contact_id from pqrs_requests where id = ${filed.id}::uuid`);
      const contactId = stored!.contact_id;

      const exported = await app.http.get(`/api/audience/contacts/${contactId}/export`).set(manager.auth).expect(200);
      const pqrs = JSON.stringify(exported.body);
      expect(pqrs).toContain('Mi vecino Pedro Ruiz');
      expect(pqrs).toContain(filed.number);

      await app.http.delete(`/api/audience/contacts/${contactId}`).set(manager.auth).expect(200);
      const after = await app.http.get(`${base}/${filed.id}`).set(manager.auth).expect(200);
      expect(after.body).toMatchObject({
        number: filed.number,
        status: 'answered',
        citizenErased: true,
        personal: { description: '(texto suprimido a solicitud del titular)', attachments: [] },
      });
      expect(after.body.personal.answer).toBe('(texto suprimido a solicitud del titular)');
      expect(JSON.stringify(after.body)).not.toMatch(/Pedro Ruiz|Ana Pérez|300555/);
      const [history] = await rows(sql<{ n: number }>`select count(*)::int as n from pqrs_history where request_id = ${filed.id}::uuid`);
      expect(history!.n).toBe(5); // filed, notice, attachment, answer, notice
      const later = new Date(Date.now() + 3600_000);
      expect(await sweepAttachments(app.runtime.deps, later)).toBe(1);
      const left = await rows(sql<{ id: string }>`select id from pqrs_attachments`);
      expect(await storedNames(app.runtime.deps.files, 'pqrs/attachments', { staged: true })).toEqual(left.map((row) => row.id).sort());
    });
  });
});

describe('bad input and access on every endpoint', () => {
  it('answers 401, 403, 400 and 404 as problems', async () => {
    const filed = await file();
    const id = filed.id;
    const endpoints: [method: 'get' | 'patch' | 'post' | 'put', url: string, body?: object][] = [
      ['get', base],
      ['get', `${base}/${id}`],
      ['get', `${base}/${id}/history`],
      ['patch', `${base}/${id}`, { priority: 'high' }],
      ['post', `${base}/${id}/answer`, { answer: 'Una respuesta suficiente.' }],
      ['post', `${base}/${id}/extend`, { newDueDate: today(), reason: 'Una razón suficiente.' }],
      ['post', `${base}/from-whatsapp`, { conversationId: UNKNOWN, type: 'queja', subject: 'Nada' }],
      ['get', `${base}/settings`],
      [
        'put',
        `${base}/settings`,
        { consentText: 'x'.repeat(30), privacyPolicyUrl: null, receivedTemplate: null, answeredTemplate: null, extendedTemplate: null, templateLanguage: 'es' },
      ],
    ];
    for (const [method, url, body] of endpoints) {
      expectProblem(await app.http[method](url).send(body), 401);
      expectProblem(await app.http[method](url).set(volunteer.auth).send(body), 403);
    }
    for (const [method, url, body] of endpoints.filter(([method]) => method !== 'get')) {
      if (url.endsWith('/settings')) continue;
      expectProblem(await app.http[method](url).set(viewer.auth).send(body), 403);
    }
    for (const suffix of ['', '/history']) {
      expectProblem(await app.http.get(`${base}/not-a-uuid${suffix}`).set(manager.auth), 400);
      expectProblem(await app.http.get(`${base}/${UNKNOWN}${suffix}`).set(manager.auth), 404);
    }
    expectProblem(await app.http.patch(`${base}/${UNKNOWN}`).set(manager.auth).send({ priority: 'high' }), 404);
    expectProblem(await app.http.post(`${base}/${UNKNOWN}/answer`).set(manager.auth).send({ answer: 'Una respuesta suficiente.' }), 404);
    expectProblem(await app.http.post(`${base}/${UNKNOWN}/extend`).set(manager.auth).send({ newDueDate: today(), reason: 'Una razón suficiente.' }), 404);
    expectProblem(await app.http.patch(`${base}/${id}`).set(manager.auth).send({ priority: 'critical' }), 400);
    expectProblem(await app.http.patch(`${base}/${id}`).set(manager.auth).send({ subject: 'new' }), 400);
    expectProblem(await app.http.post(`${base}/${id}/answer`).set(manager.auth).send({}), 400);
    expectProblem(await app.http.post(`${base}/${id}/extend`).set(manager.auth).send({ newDueDate: '2026-02-30', reason: 'Una razón suficiente.' }), 400);
    for (const query of [{ status: 'lost' }, { overdue: 'yes' }, { dueBefore: '25/11/2026' }, { territoryId: 'x' }, { limit: '0' }, { sort: 'asc' }]) {
      expectProblem(await app.http.get(base).set(manager.auth).query(query), 400);
    }
    expectProblem(await app.http.put(`${base}/settings`).set(manager.auth).send({ consentText: 'corto' }), 400);
    const settings = {
      consentText: 'Autorizo el tratamiento de mis datos para esta solicitud.',
      privacyPolicyUrl: 'javascript:alert(1)',
      receivedTemplate: null,
      answeredTemplate: null,
      extendedTemplate: null,
      templateLanguage: 'es',
    };
    expectProblem(await app.http.put(`${base}/settings`).set(manager.auth).send(settings), 400);
    const saved = await app.http
      .put(`${base}/settings`)
      .set(manager.auth)
      .send({ ...settings, privacyPolicyUrl: 'https://example.org/datos', receivedTemplate: 'pqrs_recibida', answeredTemplate: 'pqrs_respuesta', templateLanguage: 'es_CO' })
      .expect(200);
    expect(saved.body).toMatchObject({ receivedTemplate: 'pqrs_recibida', templateLanguage: 'es_CO' });
    await app.http.get(`${base}/settings`).set(manager.auth).expect(200);
  });

  it('rate-limits public filings per person', async () => {
    const same = citizen({ phone: '315 555 0101' });
    for (let attempt = 0; attempt < 10; attempt += 1) await app.http.post(base).send(same).expect(201);
    expectProblem(await app.http.post(base).send({ ...same, phone: '+57 315 5550101' }), 429, 'rate_limited');
    await app.http
      .post(base)
      .set(manager.auth)
      .send({ ...same, channel: 'telefono' })
      .expect(201);
  });

  it('rate-limits public filings per IP', async () => {
    let limited: Awaited<ReturnType<typeof app.http.post>> | undefined;
    for (let attempt = 0; attempt < 110 && !limited; attempt += 1) {
      const response = await app.http.post(base).send(citizen());
      if (response.status === 429) limited = response;
      else expect(response.status).toBe(201);
    }
    expect(limited).toBeDefined();
    expectProblem(limited!, 429, 'rate_limited');
    expect(Number(limited!.headers['retry-after'])).toBeGreaterThan(0);
  });
});
