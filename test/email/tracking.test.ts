import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { FakeSmtp, type ReceivedMessage } from '../fakes/smtp';
import { TrackingTokens } from '../../src/modules/email/email.tracking-tokens';
import { eventWriter } from '../../src/modules/email/email.tracking';
import { TRACKING_SECRET, campaignBody, createCampaign, createTemplate, emailEnv, linksIn, pathOf, seedContacts, query, sql, waitForCampaign } from './helpers';

let smtp: FakeSmtp;
let app: TestApp;
let manager: TestUser;
let viewer: TestUser;
let templateId: string;
let campaignId: string;
const tokens = new TrackingTokens(TRACKING_SECRET);

const HUMAN = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

function message(address: string): ReceivedMessage {
  const found = smtp.to(address);
  if (found.length !== 1) throw new Error(`${found.length} messages to ${address}`);
  return found[0]!;
}
const pixelOf = (address: string) => pathOf(/<img src="([^"]+\/e\/o\/[^"]+)"/.exec(message(address).parsed!.html as string)![1]!);
const clicksOf = (address: string) =>
  linksIn(message(address).parsed!.html as string)
    .filter((link) => link.includes('/e/c/'))
    .map(pathOf);
const unsubscribeOf = (address: string) => pathOf(/<(https:[^>]+)>/.exec(message(address).header('List-Unsubscribe')[0]!)![1]!);
// The pixel answers before its row is written: flush the writer before counting.
const flush = () => eventWriter(app.runtime.deps).flush();
const stats = async () => (await flush(), await app.http.get(`/api/email-marketing/campaigns/${campaignId}/stats`).set(viewer.auth).expect(200)).body;
const eventCount = async () => (await flush(), await query(app, sql<{ n: number }>`select count(*)::int as n from email_events`))[0]!.n;

beforeAll(async () => {
  smtp = await new FakeSmtp().start();
  app = await startTestApp(emailEnv(smtp.url));
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  viewer = await createUser(app, admin, 'viewer');
  templateId = (await createTemplate(app, manager)).id;
  await seedContacts(app, { prefix: 'track', count: 5 });
  campaignId = (await createCampaign(app, manager, campaignBody(templateId))).id;
  await app.http.post(`/api/email-marketing/campaigns/${campaignId}/send`).set(manager.auth).expect(202);
  await waitForCampaign(app, campaignId, (row) => row.status === 'sent');
});
afterAll(async () => {
  await app.close();
  await smtp.stop();
});

describe('open pixel', () => {
  it('answers a 1×1 GIF that is never cached, counting total and unique opens', async () => {
    const pixel = pixelOf('track1@example.org');
    for (let i = 0; i < 3; i++) {
      const response = await app.http.get(pixel).set('User-Agent', HUMAN).expect(200);
      expect(response.headers['content-type']).toBe('image/gif');
      expect(response.headers['cache-control']).toMatch(/no-store/);
      expect(Buffer.from(response.body).subarray(0, 6).toString()).toBe('GIF89a');
      expect(Buffer.from(response.body).readUInt16LE(6)).toBe(1);
    }
    await app.http.get(pixelOf('track2@example.org')).set('User-Agent', HUMAN).expect(200);
    const body = await stats();
    expect(body.opens).toEqual({ unique: 2, total: 4, rate: 0.4, machine: 0 });
    expect(body.variants[0]).toMatchObject({ name: 'A', recipients: 5, sent: 5, uniqueOpens: 2, openRate: 0.4 });
    expect(body.timeline).toEqual([{ hour: expect.stringMatching(/T\d\d:00:00.000Z$/), opens: 4, clicks: 0 }]);
  });

  it('marks privacy-proxy and scanner fetches as machine opens, apart from people', async () => {
    await app.http.get(pixelOf('track3@example.org')).set('User-Agent', 'Mozilla/5.0').expect(200);
    await app.http.get(pixelOf('track3@example.org')).set('User-Agent', 'Googlebot/2.1 (+http://www.google.com/bot.html)').expect(200);
    const body = await stats();
    expect(body.opens).toMatchObject({ unique: 2, total: 4, machine: 2 });
  });

  it('treats forged, truncated and edited tokens as unknown: 404 and nothing counted', async () => {
    const before = await eventCount();
    const pixel = pixelOf('track1@example.org');
    const token = pixel.split('/').pop()!;
    const edited = `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`;
    for (const bad of [token.slice(0, 30), edited, `${token}x`, 'A'.repeat(38), '..%2F..%2Fetc', tokens.sign('click', 1n)]) {
      const response = await app.http.get(`/e/o/${bad}`).set('User-Agent', HUMAN);
      expect(response.status).toBe(404);
    }
    // Well-formed and signed, but for a recipient that does not exist.
    await app.http.get(`/e/o/${tokens.sign('open', 999_999n)}`).expect(200);
    expect(await eventCount()).toBe(before);
  });
});

describe('click redirect', () => {
  it('sends the person to the original URL and counts per link', async () => {
    const [first, second] = clicksOf('track4@example.org');
    const response = await app.http.get(first!).set('User-Agent', HUMAN).expect(302);
    expect(response.headers.location).toBe('https://ejemplo.co/propuestas?utm=correo&x=1');
    await app.http.get(first!).set('User-Agent', HUMAN).expect(302);
    expect((await app.http.get(second!).set('User-Agent', HUMAN).expect(302)).headers.location).toBe('https://ejemplo.co/agenda');
    await app.http.get(clicksOf('track5@example.org')[0]!).set('User-Agent', HUMAN).expect(302);
    const body = await stats();
    expect(body.clicks).toEqual({ unique: 2, total: 4, rate: 0.4, clickToOpenRate: 0.5 });
    // Clicking proves an open even with images blocked: 1, 2 opened; 4, 5 clicked.
    expect(body.opens.unique).toBe(4);
    expect(body.links).toEqual([
      { url: 'https://ejemplo.co/propuestas?utm=correo&x=1', uniqueClicks: 2, totalClicks: 3 },
      { url: 'https://ejemplo.co/agenda', uniqueClicks: 1, totalClicks: 1 },
    ]);
  });

  it('never redirects to a link that was not in the message, nor with forged tokens', async () => {
    const before = await eventCount();
    const [recipient] = await query(app, sql<{ id: string }>`select id from email_recipients where email = 'track4@example.org'`);
    expect((await app.http.get(`/e/c/${tokens.sign('click', BigInt(recipient!.id), 7)}`)).status).toBe(404);
    const link = clicksOf('track4@example.org')[0]!;
    expect((await app.http.get(`${link.slice(0, -1)}`)).status).toBe(404);
    expect((await app.http.get(`/e/c/${tokens.sign('open', BigInt(recipient!.id))}`)).status).toBe(404);
    const otherKey = new TrackingTokens('another-secret-another-secret-0123456789');
    expect((await app.http.get(`/e/c/${otherKey.sign('click', BigInt(recipient!.id), 0)}`)).status).toBe(404);
    expect(await eventCount()).toBe(before);
  });
});

describe('unsubscribe', () => {
  it('shows a confirmation page on GET without unsubscribing', async () => {
    const page = await app.http.get(unsubscribeOf('track1@example.org')).expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('¿Quieres dejar de recibir nuestros correos?');
    expect(page.text).toContain(`action="${unsubscribeOf('track1@example.org')}"`);
    expect((await stats()).unsubscribed).toBe(0);
    expect(await query(app, sql`select email_opted_out_at from contacts where email = 'track1@example.org'`)).toEqual([{ email_opted_out_at: null }]);
  });

  it('unsubscribes with the RFC 8058 one-click POST, answering 200 (no redirect), with proof in the consent records', async () => {
    const response = await app.http.post(unsubscribeOf('track1@example.org')).set('User-Agent', 'Gmail one-click').type('form').send('List-Unsubscribe=One-Click').expect(200);
    expect(response.text).toContain('cancelamos tu suscripción');
    const [contact] = await query(app, sql<{ email_opted_out_at: Date | null }>`select email_opted_out_at from contacts where email = 'track1@example.org'`);
    expect(contact!.email_opted_out_at).not.toBeNull();
    const proofs = await query(
      app,
      sql<Record<string, unknown>>`select k.source, k.source_ref, k.email_opt_in, k.ip_hash, k.user_agent, t.text from consents k join contacts c on c.id = k.contact_id
       join consent_texts t on t.id = k.text_id where c.email = 'track1@example.org'`,
    );
    expect(proofs).toEqual([
      {
        source: 'email_unsubscribe',
        source_ref: campaignId,
        email_opt_in: false,
        ip_hash: expect.stringMatching(/^[0-9a-f]{32}$/),
        user_agent: 'one-click; Gmail one-click',
        text: expect.stringContaining('baja'),
      },
    ]);
    // The form on the page (a second time) changes nothing more.
    await app.http.post(unsubscribeOf('track1@example.org')).type('form').send('').expect(200);
    const body = await stats();
    expect(body.unsubscribed).toBe(1);
    expect(await query(app, sql`select 1 from consents k join contacts c on c.id = k.contact_id where c.email = 'track1@example.org'`)).toHaveLength(1);
    const later = await createCampaign(app, manager, campaignBody(templateId));
    expect(later.audienceSize).toBe(4);
  });

  it('keeps the unsubscribe as a withdrawal of consent: action, how it came and the other channel as it stood', async () => {
    const [withdrawal] = await query(
      app,
      sql<
        Record<string, unknown>
      >`select k.action, k.evidence, k.whatsapp_opt_in, k.email_opt_in, k.given_at is not null as dated from consents k join contacts c on c.id = k.contact_id
       where c.email = 'track1@example.org'`,
    );
    expect(withdrawal).toEqual({ action: 'withdrawn', evidence: 'one-click unsubscribe (List-Unsubscribe-Post)', whatsapp_opt_in: false, email_opt_in: false, dated: true });
  });

  it('answers 404 to forged unsubscribe tokens, changing nothing', async () => {
    const path = unsubscribeOf('track2@example.org');
    const edited = `${path.slice(0, -2)}${path.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await app.http.post(edited).type('form').send('List-Unsubscribe=One-Click')).status).toBe(404);
    expect((await app.http.get(edited)).status).toBe(404);
    expect((await app.http.post('/e/u/short').type('form').send('List-Unsubscribe=One-Click')).status).toBe(404);
    expect((await stats()).unsubscribed).toBe(1);
  });
});

describe('stats and dashboard', () => {
  it('are for staff only, with 404 for unknown campaigns', async () => {
    expectProblem(await app.http.get(`/api/email-marketing/campaigns/${campaignId}/stats`), 401);
    expectProblem(await app.http.get('/api/email-marketing/campaigns/0190f2a4-7b8c-7def-8123-456789abcdef/stats').set(viewer.auth), 404);
    expectProblem(await app.http.get('/api/email-marketing/campaigns/zz/stats').set(viewer.auth), 400);
    expectProblem(await app.http.get('/api/email-marketing/dashboard'), 401);
  });

  it('give the campaign shape of the issue and the dashboard headline numbers', async () => {
    const body = await stats();
    expect(Object.keys(body).sort()).toEqual(
      [
        'abTest',
        'audienceSize',
        'bounced',
        'campaignId',
        'clicks',
        'failed',
        'links',
        'opens',
        'retrying',
        'sent',
        'softBounced',
        'status',
        'timeline',
        'unsubscribed',
        'variants',
      ].sort(),
    );
    expect(body.abTest).toEqual({ phase: 'none', winner: null, decidedAt: null, metric: null, reason: null, zScore: null, pValue: null, excluded: [] });
    const dashboard = await app.http.get('/api/email-marketing/dashboard').set(viewer.auth).expect(200);
    expect(dashboard.body.last30Days).toMatchObject({ sent: 5, uniqueOpens: 4, uniqueClicks: 2, unsubscribes: 1, bounces: 0, openRate: 0.8, clickRate: 0.4 });
    expect(dashboard.body.audience).toMatchObject({ size: 4, newLast30Days: 4, unsubscribedLast30Days: 1, suppressed: 0 });
    const row = dashboard.body.campaigns.find((campaign: { id: string }) => campaign.id === campaignId);
    expect(row).toMatchObject({ sent: 5, openRate: 0.8, clickRate: 0.4, unsubscribeRate: 0.2, bounceRate: 0, status: 'sent' });
  });
});

describe('token guessing', () => {
  it('is cut off with 429 after 100 unknown tokens from one client in 10 minutes, while real links keep working', async () => {
    let status = 404;
    let tries = 0;
    while (status === 404 && tries < 150) {
      status = (await app.http.get(`/e/o/${'B'.repeat(37)}${tries % 10}`)).status;
      tries++;
    }
    expect(status).toBe(429);
    expect(tries).toBeLessThanOrEqual(101);
    expectProblem(await app.http.get(`/e/c/${'C'.repeat(38)}`), 429, 'rate_limited');
    await app.http.get(pixelOf('track2@example.org')).set('User-Agent', HUMAN).expect(200);
  });
});
