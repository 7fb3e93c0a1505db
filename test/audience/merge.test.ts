import { randomUUID } from 'node:crypto';
import { sql } from '../../src/kernel/sql';
import { purgeMergeSnapshots } from '../../src/modules/audience/audience.merge';
import { audiencePolicy } from '../../src/modules/audience/audience.policy';
import { allowedRoles } from '../helpers/policy';
import { campaignBody, createCampaign, generateCodes, lead } from '../helpers/qr';
import { createUser, expectProblem, type TestUser } from '../helpers/users';
import { startWhatsAppTest, type WhatsAppTest } from '../whatsapp/setup';
import { until } from '../helpers/wait';

/**
 * Two records of one person made one (POST /api/audience/contacts/:id/merge) and split again
 * (POST /api/audience/merges/:id/undo). The person is built through the public API twice over:
 * a poster capture and a WhatsApp message from each of their two numbers, a PQRS request and a
 * GOTV voter on the second record, an answer to the same event from both. The merge moves every
 * link and consent record to the survivor; the undo puts every row back as it was.
 */

const SURVIVOR = { name: 'Marta Lucía Gómez', phoneLocal: '300 111 2233', phone: '+573001112233', waId: '573001112233', email: 'marta.gomez@example.org' };
const OTHER = { name: 'Marta Lucia Gomez', phoneLocal: '310 444 5566', phone: '+573104445566', waId: '573104445566' };
const CEDULA = '52999888';
/** What must be gone once the person is erased, as case-insensitive substrings of any stored text. */
const TRACES = ['Marta', 'Gómez', 'Gomez', '3001112233', '3104445566', 'marta.gomez', CEDULA];

let t: WhatsAppTest;
let manager: TestUser;
let others: TestUser[];
let a: string;
let b: string;
let requestId: string;
let voterId: string;
let eventId: string;

const http = () => t.app.http;
const db = () => t.app.runtime.deps.db;
const merge = (into: string, from: string, user: TestUser = manager) => http().post(`/api/audience/contacts/${into}/merge`).set(user.auth).send({ from });
const undo = (id: string, user: TestUser = manager) => http().post(`/api/audience/merges/${id}/undo`).set(user.auth);
const csv = (text: string) => http().post('/api/audience/contacts/import').set(manager.auth).set('Content-Type', 'text/csv').send(text);
const idOf = async (phone: string) => (await db().first(sql<{ id: string }>`select id from contacts where phone = ${phone}`))!.id;

/** Every row that points at either record, with all its columns, as it stands. */
async function state() {
  const ids = [a, b];
  return {
    contacts: await db().rows(sql`select * from contacts where id = any(${ids}::uuid[]) order by id`),
    consents: await db().rows(sql`select * from consents where contact_id = any(${ids}::uuid[]) order by id`),
    origins: await db().rows(sql`select * from contact_origins where contact_id = any(${ids}::uuid[]) order by contact_id, kind, ref_id`),
    leads: await db().rows(sql`select * from qr_leads where contact_id = any(${ids}::uuid[]) order by id`),
    conversations: await db().rows(sql`select * from wa_conversations where contact_id = any(${ids}::uuid[]) order by id`),
    messages: await db().rows(sql`select * from wa_messages where contact_id = any(${ids}::uuid[]) order by id`),
    requests: await db().rows(sql`select id, contact_id, description from pqrs_requests where contact_id = any(${ids}::uuid[]) order by id`),
    voters: await db().rows(sql`select id, contact_id, name, document_id from gotv_voters where contact_id = any(${ids}::uuid[]) order by id`),
    rsvps: await db().rows(sql`select * from agenda_rsvps where contact_id = any(${ids}::uuid[]) order by id`),
    notices: await db().rows(sql`select * from notices where contact_id = any(${ids}::uuid[]) order by id`),
  };
}

/** Where any trace of the person is stored: `table.column`, once per column. */
async function tracesLeft(): Promise<string[]> {
  const columns = await db().rows(sql<{ table_name: string; column_name: string }>`
    select c.table_name, c.column_name from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
    where c.table_schema = 'public' and (c.data_type in ('text', 'character varying', 'character', 'json', 'jsonb') or c.data_type = 'ARRAY')`);
  const found: string[] = [];
  const patterns = TRACES.map((trace) => `%${trace}%`);
  for (const { table_name: table, column_name: column } of columns) {
    const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
    const row = await db().first(
      sql<{ n: number }>`select count(*)::int as n from ${sql.raw(quoted(table))} where ${sql.raw(quoted(column))}::text ilike any(${patterns}::text[])`,
    );
    if (row!.n > 0) found.push(`${table}.${column}`);
  }
  return found;
}

/** Every outbound WhatsApp message settled (the fake's statuses arrive asynchronously). */
async function whatsappSettled() {
  await t.fake.webhooksDrained();
  await until(
    async () =>
      (await db().first(sql<{ n: number }>`select count(*)::int as n from wa_messages where direction = 'out' and status not in ('delivered', 'read', 'failed', 'skipped')`))!.n ===
      0,
    10_000,
    'outbound messages settled',
  );
  await t.fake.webhooksDrained();
}

beforeAll(async () => {
  t = await startWhatsAppTest();
  manager = t.manager;
  others = [await createUser(t.app, t.admin, 'viewer'), await createUser(t.app, t.admin, 'volunteer'), await createUser(t.app, t.admin, 'brigade')];

  // A poster capture from each number: the second without an email, with a barrio, the cédula typed with dots.
  const landing = { ...campaignBody().landing, fields: { phone: 'required', email: 'optional', documentId: 'optional', neighbourhood: 'optional' } };
  const campaign = await createCampaign(t.app, manager, { landing });
  const [code] = await generateCodes(t.app, manager, campaign.id, { count: 1 });
  await http()
    .post('/api/qr-leads/capture')
    .send(lead(code!.code, { name: SURVIVOR.name, phone: SURVIVOR.phoneLocal, email: SURVIVOR.email, documentId: CEDULA, interests: ['salud'], emailOptIn: true }))
    .expect(201);
  await http()
    .post('/api/qr-leads/capture')
    .send(lead(code!.code, { name: OTHER.name, phone: OTHER.phoneLocal, email: undefined, documentId: '52.999.888', neighbourhood: 'Timiza', interests: ['empleo'] }))
    .expect(201);
  a = await idOf(SURVIVOR.phone);
  b = await idOf(OTHER.phone);

  // Each number writes to the campaign on WhatsApp: two conversations.
  t.fake.postWebhook(t.fake.inboundPayload(SURVIVOR.waId, { type: 'text', text: { body: 'Hola, ¿cuándo es el evento?' } }, 'Marta'));
  t.fake.postWebhook(t.fake.inboundPayload(OTHER.waId, { type: 'text', text: { body: 'Buenas, soy Marta, la del barrio Timiza' } }, 'Marta'));
  await t.fake.webhooksDrained();
  await until(async () => (await db().rows(sql`select 1 from wa_conversations`)).length === 2, 10_000, 'two conversations');

  // A PQRS request filed from the second number, and a GOTV voter linked to that record.
  requestId = (
    await http()
      .post('/api/pqrs')
      .send({ type: 'peticion', subject: 'Alumbrado', description: 'La calle del parque sigue sin luz desde el lunes.', name: OTHER.name, phone: OTHER.phoneLocal, consent: true })
      .expect(201)
  ).body.id;
  const station = await http()
    .post('/api/gotv/polling-stations')
    .set(manager.auth)
    .send({ code: 'MRG-1', name: 'Colegio', lat: 4.6, lng: -74.1, tables: 8, registeredVoters: 3000 })
    .expect(201);
  voterId = (
    await http()
      .post('/api/gotv/voters')
      .set(manager.auth)
      .send({ name: OTHER.name, documentId: CEDULA, phone: OTHER.phoneLocal, pollingStationId: station.body.id, tableNumber: 3, contactId: b })
      .expect(201)
  ).body.id;

  // Both records answered the same event: "maybe", then (later) "going".
  const start = new Date(Date.now() + 48 * 3_600_000);
  eventId = (
    await http()
      .post('/api/agenda/events')
      .set(manager.auth)
      .send({ title: 'Encuentro en Timiza', type: 'meeting', startsAt: start.toISOString(), endsAt: new Date(start.getTime() + 7_200_000).toISOString(), address: 'Salón comunal' })
      .expect(201)
  ).body.id;
  await http().post(`/api/agenda/events/${eventId}/rsvp`).set(manager.auth).send({ contactId: a, status: 'maybe' }).expect(200);
  await http().post(`/api/agenda/events/${eventId}/rsvp`).set(manager.auth).send({ contactId: b, status: 'going' }).expect(200);
  await whatsappSettled();
}, 60_000);

afterAll(() => t.close());

describe('a merge', () => {
  it('answers bad input, unknown people and the wrong callers with problems, changing nothing', async () => {
    const before = await state();
    expectProblem(await merge('not-a-uuid', b), 400, 'validation_failed');
    expectProblem(await http().post(`/api/audience/contacts/${a}/merge`).set(manager.auth).send({}), 400, 'validation_failed');
    expectProblem(await http().post(`/api/audience/contacts/${a}/merge`).set(manager.auth).send({ from: 'x' }), 400, 'validation_failed');
    expectProblem(await merge(a, a), 400, 'same_contact');
    expectProblem(await merge(a, randomUUID()), 404, 'not_found');
    expectProblem(await merge(randomUUID(), b), 404, 'not_found');
    for (const user of others) expectProblem(await merge(a, b, user), 403, 'forbidden');
    expectProblem(await http().post(`/api/audience/contacts/${a}/merge`).send({ from: b }), 401);
    expect(await state()).toEqual(before);
  });

  it('is offered by the duplicate finder first (same cédula, same name)', async () => {
    const pairs = (await http().get(`/api/audience/duplicates?contactId=${a}`).set(manager.auth).expect(200)).body.data;
    expect(pairs).toHaveLength(1);
    expect(pairs[0].contacts.map((contact: { id: string }) => contact.id).sort()).toEqual([a, b].sort());
    expect(pairs[0].reasons).toEqual(['same_document', 'similar_name']);
  });

  let mergeId: string;
  let before: Awaited<ReturnType<typeof state>>;

  it('moves every module’s links and every consent record to the survivor and leaves the other a tombstone', async () => {
    before = await state();
    const response = await merge(a, b).expect(201);
    mergeId = response.body.id;
    expect(response.body).toMatchObject({
      intoContactId: a,
      intoName: SURVIVOR.name,
      fromContactId: b,
      fromName: OTHER.name,
      mergedBy: manager.id,
      status: 'undoable',
      undoneAt: null,
    });
    expect(Date.parse(response.body.undoUntil) - Date.parse(response.body.mergedAt)).toBe(24 * 3_600_000);
    const otherConsents = before.consents.filter((row) => row.contact_id === b);
    expect(response.body.counts).toMatchObject({
      audience: { consents: otherConsents.length, origins: 1, originsShared: 1 },
      qr: { qr_leads: 0, leadsCombined: 1 },
      whatsapp: { wa_conversations: 0, conversationsCombined: 1, campaignMessagesLeft: 0 },
      pqrs: { pqrs_requests: 1 },
      gotv: { gotv_voters: 1 },
      agenda: { agenda_rsvps: 1, rsvpsDropped: 1 },
      volunteers: { volunteers: 0 },
    });

    const after = await state();
    // Every consent record, unchanged but for whose it is.
    expect(after.consents).toEqual(before.consents.map((row) => ({ ...row, contact_id: a })));
    expect(otherConsents.length).toBeGreaterThanOrEqual(2);
    expect(after.origins.map((row) => [row.contact_id, row.kind]).sort()).toEqual([
      [a, 'pqrs'],
      [a, 'qr_campaign'],
    ]);
    // One lead for the campaign, counting both answers; the survivor's fields filled, interests joined.
    expect(after.leads).toEqual([expect.objectContaining({ contact_id: a, submissions: 2, neighbourhood: 'Timiza' })]);
    expect([...(after.leads[0]!.interests as string[])].sort()).toEqual(['empleo', 'salud']);
    const survivor = after.contacts.find((row) => row.id === a)!;
    expect(survivor).toMatchObject({ name: SURVIVOR.name, phone: SURVIVOR.phone, email: SURVIVOR.email, document_id: CEDULA, neighbourhood: 'Timiza', merged_into_id: null });
    expect([...(survivor.interests as string[])].sort()).toEqual(['empleo', 'salud']);
    const tombstone = after.contacts.find((row) => row.id === b)!;
    expect(tombstone).toMatchObject({ merged_into_id: a, phone: null, email: null, document_id: null, identity_key: `merged:${b}`, erased_at: null });
    // One conversation holding both numbers' messages.
    expect(after.conversations).toHaveLength(1);
    const conversations = (await http().get('/api/whatsapp/conversations').set(manager.auth).expect(200)).body.data;
    expect(conversations).toHaveLength(1);
    expect(conversations[0].contact.id).toBe(a);
    const messages = (await http().get(`/api/whatsapp/conversations/${conversations[0].id}/messages`).set(manager.auth).expect(200)).body.data;
    expect(messages.filter((message: { direction: string }) => message.direction === 'in')).toHaveLength(2);
    expect(after.messages.every((row) => row.contact_id === a)).toBe(true);
    expect(after.requests).toEqual([expect.objectContaining({ id: requestId, contact_id: a })]);
    expect((await http().get(`/api/gotv/voters/${voterId}`).set(manager.auth).expect(200)).body.contactId).toBe(a);
    // One answer to the event: the later one.
    expect(after.rsvps).toEqual([expect.objectContaining({ contact_id: a, status: 'going' })]);
  });

  it('no longer shows the other record as anyone', async () => {
    expectProblem(await http().get(`/api/audience/contacts/${b}/export`).set(manager.auth), 404, 'not_found');
    expectProblem(await merge(a, b), 409, 'contact_merged');
    expectProblem(await merge(b, a), 409, 'contact_merged');
    const pairs = (await http().get('/api/audience/duplicates').set(manager.auth).expect(200)).body.data;
    expect(JSON.stringify(pairs)).not.toContain(b);
    expectProblem(
      await http()
        .post('/api/audience/duplicates/dismissals')
        .set(manager.auth)
        .send({ contactIds: [a, b] }),
      404,
      'not_found',
    );
  });

  it('answers the merged record’s page with where the person is now', async () => {
    const gone = expectProblem(await http().get(`/api/audience/contacts/${b}`).set(manager.auth), 404, 'contact_merged');
    expect(gone.mergedIntoId).toBe(a);
    expectProblem(await http().get(`/api/audience/contacts/${randomUUID()}`).set(manager.auth), 404, 'not_found');
  });

  it('gives the survivor’s export the merged record while the undo window keeps it', async () => {
    const data = (await http().get(`/api/audience/contacts/${a}/export`).set(manager.auth).expect(200)).body;
    expect(data.merges).toEqual([expect.objectContaining({ mergeId, contactId: b, before: expect.objectContaining({ name: OTHER.name, phone: OTHER.phone }) })]);
    expect(data.modules.pqrs.requests).toHaveLength(1);
    expect(data.modules.gotv.voters).toHaveLength(1);
  });

  it('is audited for both records, with counts and no personal data', async () => {
    for (const id of [a, b]) {
      const entries = (await http().get(`/api/audience/audit?contactId=${id}&action=merge`).set(t.admin.auth).expect(200)).body.data;
      expect(entries).toEqual([
        expect.objectContaining({ action: 'merge', actorId: manager.id, contactId: id, detail: mergeId, counts: expect.objectContaining({ gotv: { gotv_voters: 1 } }) }),
      ]);
      const text = JSON.stringify(entries).toLowerCase();
      for (const trace of TRACES) expect(text).not.toContain(trace.toLowerCase());
    }
  });

  it('is listed among recent merges', async () => {
    const list = (await http().get('/api/audience/merges').set(manager.auth).expect(200)).body;
    expect(list.data[0]).toMatchObject({ id: mergeId, status: 'undoable', fromName: OTHER.name });
    expect((await http().get(`/api/audience/merges?contactId=${b}`).set(manager.auth).expect(200)).body.data).toHaveLength(1);
    expect((await http().get(`/api/audience/merges?contactId=${randomUUID()}`).set(manager.auth).expect(200)).body.data).toEqual([]);
    for (const user of others) expectProblem(await http().get('/api/audience/merges').set(user.auth), 403, 'forbidden');
    expectProblem(await http().get('/api/audience/merges?cursor=abc').set(manager.auth), 400, 'validation_failed');
    expectProblem(await http().get('/api/audience/merges?contactId=x').set(manager.auth), 400, 'validation_failed');
  });

  it('is undone exactly: every row back where it was, as it was', async () => {
    for (const user of others) expectProblem(await undo(mergeId, user), 403, 'forbidden');
    expectProblem(await undo('nope'), 400, 'validation_failed');
    expectProblem(await undo(randomUUID()), 404, 'not_found');
    const response = await undo(mergeId).expect(200);
    expect(response.body).toMatchObject({ id: mergeId, status: 'undone', undoneBy: manager.id, fromName: OTHER.name });
    expect(await state()).toEqual(before);
    const snapshot = await db().first(
      sql<{ snapshot: unknown; snapshot_cleared_reason: string }>`select snapshot, snapshot_cleared_reason from contact_merges where id = ${mergeId}::uuid`,
    );
    expect(snapshot).toEqual({ snapshot: null, snapshot_cleared_reason: 'undone' });
    expectProblem(await undo(mergeId), 409, 'merge_undone');
    const audit = (await http().get(`/api/audience/audit?contactId=${b}&action=merge_undo`).set(t.admin.auth).expect(200)).body.data;
    expect(audit).toHaveLength(1);
  });
});

describe('what a module cannot hold as one', () => {
  it('refuses two volunteers and two GOTV voters with a 409 naming the module, changing nothing', async () => {
    await csv(['name,phone', 'Pedro Uno,3205550001', 'Pedro Dos,3205550002', 'Rosa Uno,3205550003', 'Rosa Dos,3205550004'].join('\n')).expect(200);
    const [p1, p2, r1, r2] = await Promise.all(['+573205550001', '+573205550002', '+573205550003', '+573205550004'].map(idOf));
    for (const id of [p1!, p2!]) await http().post('/api/volunteers').set(manager.auth).send({ contactId: id }).expect(201);
    const refusedVolunteers = expectProblem(await merge(p1!, p2!), 409, 'merge_refused');
    expect(refusedVolunteers.module).toBe('volunteers');
    expect(refusedVolunteers.detail).toContain('volunteers');
    const station = (await http().get('/api/gotv/polling-stations').set(manager.auth).expect(200)).body.data[0].id;
    for (const [id, documentId] of [
      [r1!, '70111222'],
      [r2!, '70333444'],
    ] as const) {
      await http().post('/api/gotv/voters').set(manager.auth).send({ name: 'Rosa', documentId, pollingStationId: station, contactId: id }).expect(201);
    }
    const before = await db().rows(sql`select id, contact_id from gotv_voters order by id`);
    const refusedVoters = expectProblem(await merge(r1!, r2!), 409, 'merge_refused');
    expect(refusedVoters.module).toBe('gotv');
    expect(await db().rows(sql`select id, contact_id from gotv_voters order by id`)).toEqual(before);
    const contacts = await db().rows(sql<{ merged_into_id: string | null }>`select merged_into_id from contacts where id = any(${[p2, r2]}::uuid[])`);
    expect(contacts).toEqual([{ merged_into_id: null }, { merged_into_id: null }]);
  });
});

describe('identities', () => {
  it('gives an email-only survivor the other record’s phone as its identity, and the undo gives it back', async () => {
    await csv(['name,phone,email', 'Tomás Rey,,tomas.rey@example.org', 'Tomás Rey,3205550020,'].join('\n')).expect(200);
    const into = (await db().first(sql<{ id: string }>`select id from contacts where email = 'tomas.rey@example.org'`))!.id;
    const from = await idOf('+573205550020');
    const rows = () => db().rows(sql`select * from contacts where id = any(${[into, from]}::uuid[]) order by id`);
    const before = await rows();
    const merged = (await merge(into, from).expect(201)).body;
    const survivor = await db().first(sql<{ identity_key: string; phone: string }>`select identity_key, phone from contacts where id = ${into}::uuid`);
    expect(survivor).toEqual({ identity_key: 'tel:+573205550020', phone: '+573205550020' });
    // The number now finds the survivor.
    await csv(['name,phone,tags', 'Tomás Rey,320 555 0020,'].join('\n')).expect(200);
    await undo(merged.id).expect(200);
    expect(await rows()).toEqual(before);
  });
});

describe('the policy', () => {
  it('lets managers and admins import, find duplicates, merge and undo; no one else', () => {
    for (const action of ['importContacts', 'findDuplicates', 'dismissDuplicate', 'mergeContacts', 'undoMerge', 'readMerges'] as const) {
      expect(allowedRoles(audiencePolicy, action)).toEqual(['admin', 'manager']);
    }
  });
});

describe('the undo window', () => {
  it('refuses an undo after 24 hours, and the sweep clears what the merge kept', async () => {
    await csv(['name,phone,email', 'Sonia Prado,3205550010,', 'Sonia Prado,,sonia@example.org'].join('\n')).expect(200);
    const into = await idOf('+573205550010');
    const from = (await db().first(sql<{ id: string }>`select id from contacts where email = 'sonia@example.org'`))!.id;
    const mergeId = (await merge(into, from).expect(201)).body.id;
    expect((await db().first(sql<{ email: string }>`select email from contacts where id = ${into}::uuid`))!.email).toBe('sonia@example.org');
    await db().write(sql`update contact_merges set merged_at = merged_at - interval '25 hours', undo_until = undo_until - interval '25 hours' where id = ${mergeId}::uuid`);
    const problem = expectProblem(await undo(mergeId), 409, 'undo_window_passed');
    expect(problem.detail).toContain('24 hours');
    expect(await purgeMergeSnapshots(db())).toBe(1);
    const row = await db().first(
      sql<{ snapshot: unknown; snapshot_cleared_reason: string }>`select snapshot, snapshot_cleared_reason from contact_merges where id = ${mergeId}::uuid`,
    );
    expect(row).toEqual({ snapshot: null, snapshot_cleared_reason: 'expired' });
    const listed = (await http().get(`/api/audience/merges?contactId=${into}`).set(manager.auth).expect(200)).body.data;
    expect(listed).toEqual([expect.objectContaining({ id: mergeId, status: 'expired', fromName: null })]);
    expectProblem(await undo(mergeId), 409, 'undo_window_passed');
  });
});

describe('the erasure of a survivor', () => {
  it('erases the merged record and what the merge kept: no trace of the person anywhere', async () => {
    const mergeId = (await merge(a, b).expect(201)).body.id;
    await whatsappSettled();
    expect(await tracesLeft()).toEqual(expect.arrayContaining(['contact_merges.snapshot']));
    const response = await http().delete(`/api/audience/contacts/${a}`).set(manager.auth).expect(200);
    expect(response.body.counts.audience).toMatchObject({ contacts: 1, mergedRecordsErased: 1, mergeSnapshotsCleared: 1 });
    expect(await tracesLeft()).toEqual([]);
    const row = await db().first(
      sql<{ snapshot: unknown; snapshot_cleared_reason: string }>`select snapshot, snapshot_cleared_reason from contact_merges where id = ${mergeId}::uuid`,
    );
    expect(row).toEqual({ snapshot: null, snapshot_cleared_reason: 'erasure' });
    const tombstone = await db().first(sql<{ erased_at: Date | null; merged_into_id: string }>`select erased_at, merged_into_id from contacts where id = ${b}::uuid`);
    expect(tombstone).toEqual({ erased_at: expect.any(Date), merged_into_id: a });
    expectProblem(await undo(mergeId), 409, 'merge_erased');
    expect((await http().get(`/api/audience/merges?contactId=${a}`).set(manager.auth).expect(200)).body.data[0]).toMatchObject({ id: mergeId, status: 'erased' });
  });
});
