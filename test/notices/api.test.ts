import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { person, queueCommitted, reminder } from './helpers';

/** GET /api/notices: who may read it, its filters, its pages, and the 400s of a bad query. */
describe('GET /api/notices', () => {
  let app: TestApp;
  let admin: TestUser;
  let manager: TestUser;
  let viewer: TestUser;
  let volunteer: TestUser;
  let ana: string;
  let luis: string;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await registerAdmin(app);
    manager = await createUser(app, admin, 'manager');
    viewer = await createUser(app, admin, 'viewer');
    volunteer = await createUser(app, admin, 'volunteer');
    // Email without WhatsApp: no SMTP is configured, so they are written to the outbox; no consent at all for Luis.
    ana = await person(app, { email: 'ana.notices@ejemplo.co', emailConsent: true });
    luis = await person(app, { phone: '+573109990001' });
    for (let index = 0; index < 3; index++) await queueCommitted(app, reminder(ana));
    await queueCommitted(app, reminder(ana, { purpose: 'pqrs.received', channels: ['email'] }));
    await queueCommitted(app, reminder(luis, { purpose: 'pqrs.answer' }));
  }, 60_000);
  afterAll(() => app?.close());

  const list = (query: Record<string, string | number>, user: TestUser = manager) => app.http.get('/api/notices').query(query).set(user.auth);

  it('lists newest first, in pages that end and never repeat a notice', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string | number> = cursor ? { limit: 2, cursor } : { limit: 2 };
      const response: { body: { data: { id: string }[]; nextCursor: string | null } } = await list(query).expect(200);
      seen.push(...response.body.data.map((notice) => notice.id));
      cursor = response.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect([...seen].sort().reverse()).toEqual(seen);
  });

  it('filters by purpose, contact, channel and status', async () => {
    const purposes = async (query: Record<string, string>) => (await list(query).expect(200)).body.data.map((notice: { purpose: string }) => notice.purpose);
    expect(await purposes({ purpose: 'pqrs.received' })).toEqual(['pqrs.received']);
    expect(await purposes({ contactId: luis })).toEqual(['pqrs.answer']);
    expect(await purposes({ channel: 'email' })).toEqual(['pqrs.received', 'agenda.reminder', 'agenda.reminder', 'agenda.reminder']);
    expect(await purposes({ status: 'unreachable' })).toEqual(['pqrs.answer']);
    expect(await purposes({ contactId: ana, status: 'unreachable' })).toEqual([]);
    expect(await purposes({ channel: 'whatsapp' })).toEqual([]);
    const [unreachable] = (await list({ contactId: luis }).expect(200)).body.data;
    expect(unreachable).toMatchObject({ status: 'unreachable', channel: null, reason: 'no_consent', delivery: null });
    const [queued] = (await list({ purpose: 'pqrs.received' }).expect(200)).body.data;
    expect(queued).toMatchObject({ status: 'queued', channel: 'email', reason: null, messageId: expect.any(String), delivery: { status: 'queued', channelStatus: 'queued' } });
  });

  it('answers a bad query with a 400 problem', async () => {
    expectProblem(await list({ channel: 'sms' }), 400, 'validation_failed');
    expectProblem(await list({ status: 'sent' }), 400, 'validation_failed');
    expectProblem(await list({ contactId: 'not-a-uuid' }), 400, 'validation_failed');
    expectProblem(await list({ purpose: 'Agenda Reminder' }), 400, 'validation_failed');
    expectProblem(await list({ limit: 0 }), 400, 'validation_failed');
    expectProblem(await list({ limit: 500 }), 400, 'validation_failed');
    expectProblem(await list({ cursor: 'garbage' }), 400, 'validation_failed');
  });

  it('is for managers and admins only', async () => {
    await list({}, admin).expect(200);
    expectProblem(await list({}, viewer), 403, 'forbidden');
    expectProblem(await list({}, volunteer), 403, 'forbidden');
    expectProblem(await app.http.get('/api/notices'), 401);
  });
});
