import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Coalescer } from '../../src/kernel/coalesce';
import { startTestApp, type TestApp } from '../helpers/app';
import { campaignBody, createCampaign, createTemplate, seedContacts, waitForCampaign } from '../email/helpers';
import { connectSocket, subscribe } from '../helpers/sockets';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

const TOKEN = 'metrics-token-for-the-tests-0123';

/** One sample's value from Prometheus's text format (0 when the series is not there). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const braces = /\{([^}]*)\}/.exec(line)?.[1] ?? '';
    const present = braces.split(',');
    if (wanted.every((pair) => present.includes(pair))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('GET /metrics', () => {
  let app: TestApp;
  let admin: TestUser;
  let manager: TestUser;
  const scrape = async () => (await app.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text;

  beforeAll(async () => {
    // Without SMTP_URL an email campaign lands in the outbox: the outbound engine's sends are real.
    app = await startTestApp({ METRICS_TOKEN: TOKEN, SMTP_URL: undefined });
    admin = await registerAdmin(app);
    manager = await createUser(app, admin, 'manager');
  });
  afterAll(() => app.close());

  it('is a 404 without METRICS_TOKEN', async () => {
    const bare = await app.sibling({ METRICS_TOKEN: undefined });
    expectProblem(await bare.http.get('/metrics'), 404);
    expectProblem(await bare.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`), 404);
    // Its workers would take jobs whose counts the tests below read from the first process.
    await bare.runtime.stop();
  });

  it('asks for the token, and takes no other method', async () => {
    expectProblem(await app.http.get('/metrics'), 401);
    expectProblem(await app.http.get('/metrics').set('Authorization', 'Bearer not-the-token'), 401);
    expectProblem(await app.http.get('/metrics').set('Authorization', TOKEN), 401);
    expectProblem(await app.http.post('/metrics').set('Authorization', `Bearer ${TOKEN}`).send({}), 404);
    const answer = await app.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    expect(answer.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(answer.text).toContain('# TYPE comando_http_request_duration_seconds histogram');
  });

  it('times requests by route template, never by the raw path', async () => {
    const before = await scrape();
    const id = randomUUID();
    await app.http.get('/api/test').expect(200);
    await app.http.get(`/api/territories/${id}`).set(manager.auth).expect(404);
    await app.http.get(`/no-such-page-${id}`).expect(404);
    const after = await scrape();
    const count = (text: string, labels: Record<string, string>) => sample(text, 'comando_http_request_duration_seconds_count', labels);
    expect(count(after, { route: '/api/test', method: 'GET', status: '200' }) - count(before, { route: '/api/test', method: 'GET', status: '200' })).toBe(1);
    expect(count(after, { route: '/api/territories/:id', status: '404' }) - count(before, { route: '/api/territories/:id', status: '404' })).toBe(1);
    expect(count(after, { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(after).not.toContain(id);
  });

  it('counts sockets by room kind, and the database pool', async () => {
    const socket = await connectSocket(app.url, manager.token);
    try {
      await subscribe(socket, ['gotv', 'whatsapp:inbox']);
      const text = await scrape();
      expect(sample(text, 'comando_socket_room_members', { kind: 'connected' })).toBe(1);
      expect(sample(text, 'comando_socket_room_members', { kind: 'gotv' })).toBe(1);
      expect(sample(text, 'comando_socket_room_members', { kind: 'whatsapp' })).toBe(1);
      expect(text).toMatch(/comando_db_pool_connections\{state="idle"\} \d+/);
      expect(text).toMatch(/comando_db_pool_connections\{state="waiting"\} 0/);
    } finally {
      socket.close();
    }
    await until(async () => (sample(await scrape(), 'comando_socket_room_members', { kind: 'connected' }) === 0 ? true : undefined));
  });

  it('counts Redis commands that fail', async () => {
    const before = sample(await scrape(), 'comando_redis_command_failures_total', { connection: 'commands' });
    await expect(app.runtime.deps.redis!.call('NO-SUCH-COMMAND')).rejects.toThrow();
    expect(sample(await scrape(), 'comando_redis_command_failures_total', { connection: 'commands' }) - before).toBe(1);
  });

  it("reports a coalescer's queue and waits, and batched windows' delays", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const coalescer = new Coalescer<number, number>(
      async (items) => {
        await held;
        return items;
      },
      { maxBatch: 1, concurrency: 1, metrics: { registry: app.runtime.deps.metrics, name: 'probe' } },
    );
    const answers = [1, 2, 3].map((item) => coalescer.submit(item));
    // The first is in flight; the other two wait for it.
    await until(async () => (sample(await scrape(), 'comando_coalescer_queue_depth', { coalescer: 'probe' }) === 2 ? true : undefined));
    release();
    await Promise.all(answers);
    const text = await scrape();
    expect(sample(text, 'comando_coalescer_queue_depth', { coalescer: 'probe' })).toBe(0);
    expect(sample(text, 'comando_coalescer_wait_seconds_count', { coalescer: 'probe' })).toBe(3);

    const publish = app.runtime.deps.realtime.batched('qr', 'qr:lead');
    publish({ id: randomUUID() } as never);
    await until(async () => (sample(await scrape(), 'comando_realtime_window_seconds_count', { event: 'qr:lead' }) === 1 ? true : undefined));
  });

  it('times turnout reports to their hand-over to the war room', async () => {
    const member = await createUser(app, admin, 'brigade');
    const station = (
      await app.http.post('/api/gotv/polling-stations').set(manager.auth).send({ code: 'M1', name: 'M1', lat: 4.6, lng: -74.1, tables: 5, registeredVoters: 1000 }).expect(201)
    ).body.id as string;
    const voter = (await app.http.post('/api/gotv/voters').set(manager.auth).send({ name: 'Votante', documentId: '30000001', pollingStationId: station }).expect(201)).body.id;
    await app.http
      .post('/api/gotv/brigades')
      .set(manager.auth)
      .send({ name: 'B', memberIds: [member.id], stationIds: [station] })
      .expect(201);
    const before = await scrape();
    await app.http
      .post('/api/gotv/turnout')
      .set(member.auth)
      .send({ reports: [{ kind: 'voter', clientReportId: randomUUID(), voterId: voter }] })
      .expect(201);
    const after = await scrape();
    expect(sample(after, 'comando_gotv_report_publish_seconds_count') - sample(before, 'comando_gotv_report_publish_seconds_count')).toBe(1);
    expect(sample(after, 'comando_coalescer_wait_seconds_count', { coalescer: 'gotv_voter_reports' })).toBeGreaterThanOrEqual(1);
    await until(async () => (sample(await scrape(), 'comando_realtime_window_seconds_count', { event: 'gotv:turnout' }) >= 1 ? true : undefined));
  });

  it('counts outbound sends by channel and outcome', async () => {
    await seedContacts(app, { prefix: 'metrics', count: 3 });
    const campaign = await createCampaign(app, manager, campaignBody((await createTemplate(app, manager)).id));
    await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth).expect(202);
    await waitForCampaign(app, campaign.id, (row) => row.status === 'sent');
    const text = await scrape();
    expect(sample(text, 'comando_outbound_sends_total', { channel: 'email', outcome: 'sent' })).toBe(3);
    expect(text).toMatch(/comando_outbound_queue_depth\{channel="email",state="waiting"\} 0/);
  });

  it('exports every series the Grafana dashboard in deploy/ queries', async () => {
    const dashboard = readFileSync(path.join(__dirname, '..', '..', 'deploy', 'grafana-election-day.json'), 'utf8');
    const queried = [...new Set(dashboard.match(/comando_[a-z0-9_]+/g))];
    expect(queried.length).toBeGreaterThan(10);
    const text = await scrape();
    const missing = queried.filter((name) => !text.includes(`# TYPE ${name.replace(/_(bucket|count|sum)$/, '')} `));
    expect(missing).toEqual([]);
  });
});
