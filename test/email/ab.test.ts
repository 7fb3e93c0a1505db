import { Queue } from 'bullmq';
import { startTestApp, type TestApp } from '../helpers/app';
import { testRedisUrl } from '../helpers/database';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { FakeSmtp } from '../fakes/smtp';
import { chooseWinner, oneSidedPValue, twoProportionZ, type VariantResult } from '../../src/modules/email/email.ab';
import { campaignBody, createCampaign, createTemplate, emailEnv, linksIn, pathOf, seedContacts, query, sql, waitForCampaign } from './helpers';

const variant = (name: string, delivered: number, hits: number, unsubscribes = 0): VariantResult => ({ id: `id-${name}`, name, delivered, hits, unsubscribes });

describe('choosing the winner', () => {
  it('uses a one-sided two-proportion z-test', () => {
    expect(twoProportionZ(20, 50, 4, 50)).toBeCloseTo(3.746, 2);
    expect(twoProportionZ(5, 50, 5, 50)).toBe(0);
    expect(twoProportionZ(0, 0, 1, 10)).toBe(0);
  });

  it('says what a z score means as a one-sided p-value', () => {
    expect(oneSidedPValue(0)).toBe(0.5);
    expect(oneSidedPValue(1.645)).toBe(0.05);
    expect(oneSidedPValue(1.96)).toBe(0.025);
    expect(oneSidedPValue(-1.645)).toBe(0.95);
    expect(oneSidedPValue(6)).toBe(0);
  });

  it('picks the best rate when it is significantly better', () => {
    const { winnerId, decision } = chooseWinner([variant('A', 50, 4), variant('B', 50, 20)]);
    expect(winnerId).toBe('id-B');
    expect(decision).toMatchObject({ reason: 'significant', zScore: 3.746, excluded: [] });
    expect(decision.rates).toEqual([
      { variant: 'A', delivered: 50, hits: 4, rate: 0.08, unsubscribeRate: 0 },
      { variant: 'B', delivered: 50, hits: 20, rate: 0.4, unsubscribeRate: 0 },
    ]);
    expect(chooseWinner([variant('A', 100, 30), variant('B', 100, 10), variant('C', 100, 12)]).winnerId).toBe('id-A');
  });

  it('falls back to the first variant (the control) when the lead is not significant, tied or the sample too small', () => {
    expect(chooseWinner([variant('A', 50, 8), variant('B', 50, 10)])).toMatchObject({ winnerId: 'id-A', decision: { reason: 'not_significant' } });
    expect(chooseWinner([variant('A', 60, 9), variant('B', 60, 9)])).toMatchObject({ winnerId: 'id-A', decision: { reason: 'tie' } });
    expect(chooseWinner([variant('A', 10, 1), variant('B', 10, 9)])).toMatchObject({ winnerId: 'id-A', decision: { reason: 'too_small' } });
    expect(chooseWinner([variant('A', 100, 0), variant('B', 100, 3)])).toMatchObject({ winnerId: 'id-A', decision: { reason: 'too_small' } });
  });

  it('never lets a variant with a far higher unsubscribe rate win', () => {
    // B gets the clicks, but one in five readers unsubscribes.
    const { winnerId, decision } = chooseWinner([variant('A', 50, 4, 0), variant('B', 50, 20, 10), variant('C', 50, 5, 1)]);
    expect(decision.excluded).toEqual(['B']);
    expect(winnerId).toBe('id-A');
    const two = chooseWinner([variant('A', 60, 2, 15), variant('B', 60, 20, 0)]);
    expect(two).toMatchObject({ winnerId: 'id-B', decision: { excluded: ['A'] } });
    // A slightly higher unsubscribe rate is not "far above".
    expect(chooseWinner([variant('A', 50, 4, 1), variant('B', 50, 20, 2)]).winnerId).toBe('id-B');
  });
});

describe('an A/B campaign end to end', () => {
  let smtp: FakeSmtp;
  let app: TestApp;
  let manager: TestUser;
  let viewer: TestUser;

  beforeAll(async () => {
    smtp = await new FakeSmtp().start();
    app = await startTestApp(emailEnv(smtp.url, { EMAIL_SEND_CHUNK: '25' }));
    const admin = await registerAdmin(app);
    manager = await createUser(app, admin, 'manager');
    viewer = await createUser(app, admin, 'viewer');
    await seedContacts(app, { prefix: 'ab', count: 200 });
  });
  afterAll(async () => {
    await app.close();
    await smtp.stop();
  });

  it('tests on a share, waits, picks the winner by clicks and sends it to the rest exactly once', async () => {
    const templateId = (await createTemplate(app, manager)).id;
    const campaign = await createCampaign(
      app,
      manager,
      campaignBody(templateId, {
        variants: [
          { name: 'A', subject: 'A: novedades para {{contact.firstName}}', templateId },
          { name: 'B', subject: 'B: {{contact.firstName}}, te necesitamos', templateId },
        ],
        abTest: { testPercent: 50, waitMinutes: 15 },
      }),
    );
    expect(campaign).toMatchObject({ audienceSize: 200, abTest: { testPercent: 50, metric: 'click', waitMinutes: 15 }, abPhase: 'none' });
    const accepted = await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth).expect(202);
    expect(accepted.body).toMatchObject({ recipients: 200, abPhase: 'testing' });
    await waitForCampaign(app, campaign.id, (row) => row.ab_phase === 'waiting');
    expect(smtp.accepted).toBe(100);
    const bySubject = (prefix: string) => smtp.messages.filter((message) => message.parsed!.subject!.startsWith(prefix));
    expect(bySubject('A:')).toHaveLength(50);
    expect(bySubject('B:')).toHaveLength(50);
    const held = await query(app, sql`select count(*)::int as n from email_recipients where campaign_id = ${campaign.id} and status = 'held' and variant_id is null`);
    expect(held).toEqual([{ n: 100 }]);

    // The decision waits for waitMinutes in the job queue; nobody sleeps for it here.
    const read = await app.http.get(`/api/email-marketing/campaigns/${campaign.id}`).set(viewer.auth).expect(200);
    const waitMs = Date.parse(read.body.abDecideAt) - Date.now();
    expect(waitMs).toBeGreaterThan(14 * 60_000);
    expect(waitMs).toBeLessThanOrEqual(15 * 60_000);
    const queue = new Queue('email.decide-winner', { connection: { url: testRedisUrl }, prefix: `${app.config.redisKeyPrefix}:jobs` });
    const delayed = await queue.getDelayed();
    await queue.close();
    expect(delayed.map((job) => [job.data.campaignId, job.opts.delay])).toEqual([[campaign.id, expect.any(Number)]]);
    expect(delayed[0]!.opts.delay).toBeGreaterThan(14 * 60_000);

    // People click: 20 of B's 50 test recipients, 4 of A's.
    const clickers = [...bySubject('B:').slice(0, 20), ...bySubject('A:').slice(0, 4)];
    for (const message of clickers) {
      const link = linksIn(message.parsed!.html as string).find((href) => href.includes('/e/c/'))!;
      await app.http.get(pathOf(link)).set('User-Agent', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148').expect(302);
    }
    const waiting = (await app.http.get(`/api/email-marketing/campaigns/${campaign.id}/stats`).set(viewer.auth).expect(200)).body;
    expect(waiting.abTest).toEqual({ phase: 'waiting', winner: null, decidedAt: null, metric: 'click', reason: null, zScore: null, pValue: null, excluded: [] });
    expect(waiting.variants).toEqual([
      { name: 'A', subject: 'A: novedades para {{contact.firstName}}', recipients: 50, sent: 50, uniqueOpens: 4, openRate: 0.08, uniqueClicks: 4, clickRate: 0.08 },
      { name: 'B', subject: 'B: {{contact.firstName}}, te necesitamos', recipients: 50, sent: 50, uniqueOpens: 20, openRate: 0.4, uniqueClicks: 20, clickRate: 0.4 },
    ]);

    const decided = await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/decide-winner`).set(manager.auth).expect(200);
    expect(decided.body).toMatchObject({ abPhase: 'winner_sent', winner: 'B' });
    expectProblem(await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/decide-winner`).set(manager.auth), 409, 'not_waiting');
    await waitForCampaign(app, campaign.id, (row) => row.status === 'sent');
    expect(smtp.accepted).toBe(200);
    expect(new Set(smtp.messages.map((message) => message.to[0])).size).toBe(200);
    expect(bySubject('B:')).toHaveLength(150);
    const stats = (await app.http.get(`/api/email-marketing/campaigns/${campaign.id}/stats`).set(viewer.auth).expect(200)).body;
    expect(stats).toMatchObject({
      status: 'sent',
      sent: 200,
      audienceSize: 200,
      abTest: { phase: 'winner_sent', winner: 'B', metric: 'click', reason: 'significant', decidedAt: expect.any(String), excluded: [] },
    });
    // 20/50 against 4/50, pooled: z = 0.32 / √(0.24 · 0.76 · 0.04) ≈ 3.746, P(Z ≥ z) ≈ 0.00009.
    expect(stats.abTest.zScore).toBeCloseTo(3.746, 2);
    expect(stats.abTest.pValue).toBe(0.0001);
    expect(stats.variants.map((row: { name: string; recipients: number }) => [row.name, row.recipients])).toEqual([
      ['A', 50],
      ['B', 150],
    ]);
  });

  it('keeps a variant that drives people to unsubscribe from winning, even with more clicks', async () => {
    await seedContacts(app, { prefix: 'guard', count: 120, interests: ['guardia'] });
    const templateId = (await createTemplate(app, manager)).id;
    const campaign = await createCampaign(
      app,
      manager,
      campaignBody(templateId, {
        segment: { interestsAny: ['guardia'] },
        variants: [
          { name: 'A', subject: 'Guardia A', templateId },
          { name: 'B', subject: 'Guardia B', templateId },
        ],
        abTest: { testPercent: 50, metric: 'click', waitMinutes: 60 },
      }),
    );
    const before = smtp.messages.length;
    await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth).expect(202);
    await waitForCampaign(app, campaign.id, (row) => row.ab_phase === 'waiting');
    const sent = smtp.messages.slice(before);
    const a = sent.filter((message) => message.parsed!.subject === 'Guardia A');
    const b = sent.filter((message) => message.parsed!.subject === 'Guardia B');
    expect([a.length, b.length]).toEqual([30, 30]);
    const click = (message: (typeof sent)[number]) =>
      app.http
        .get(pathOf(linksIn(message.parsed!.html as string).find((href) => href.includes('/e/c/'))!))
        .set('User-Agent', 'Mozilla/5.0 (Android 14; Mobile) Firefox/125.0')
        .expect(302);
    for (const message of b.slice(0, 12)) await click(message);
    for (const message of a.slice(0, 6)) await click(message);
    for (const message of b.slice(12, 20)) {
      const unsubscribe = /<(https:[^>]+)>/.exec(message.header('List-Unsubscribe')[0]!)![1]!;
      await app.http.post(pathOf(unsubscribe)).type('form').send('List-Unsubscribe=One-Click').expect(200);
    }
    const decided = await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/decide-winner`).set(manager.auth).expect(200);
    expect(decided.body.winner).toBe('A');
    const [row] = await query(app, sql<{ decision: { reason: string; excluded: string[] } }>`select decision from email_campaigns where id = ${campaign.id}`);
    expect(row!.decision).toMatchObject({ reason: 'guardrail', excluded: ['B'] });
    await waitForCampaign(app, campaign.id, (state) => state.status === 'sent');
    // The 60 held recipients get A; the 8 who unsubscribed were in the test share, so all 60 go out.
    expect(smtp.messages.slice(before).filter((message) => message.parsed!.subject === 'Guardia A')).toHaveLength(90);
  });

  it('refuses a decision when no test is waiting', async () => {
    const templateId = (await createTemplate(app, manager)).id;
    const plain = await createCampaign(app, manager, campaignBody(templateId));
    expectProblem(await app.http.post(`/api/email-marketing/campaigns/${plain.id}/decide-winner`).set(manager.auth), 409, 'not_waiting');
    expectProblem(await app.http.post(`/api/email-marketing/campaigns/${plain.id}/decide-winner`).set(viewer.auth), 403);
    expectProblem(await app.http.post('/api/email-marketing/campaigns/0190f2a4-7b8c-7def-8123-456789abcdef/decide-winner').set(manager.auth), 404);
  });
});
