import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { connectSocket, subscribe } from '../helpers/sockets';

import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { FakeSmtp } from '../fakes/smtp';
import { campaignBody, createCampaign, createTemplate, emailEnv, seedContacts, waitForCampaign } from './helpers';
import { until } from '../helpers/wait';

/**
 * A relay that refuses everything (a bad SMTP account, say) would mark a whole list bounced and
 * suppress every address: the sender pauses the campaign after a few errors in a row instead.
 */
describe('a campaign whose sends keep failing', () => {
  let smtp: FakeSmtp;
  let app: TestApp;
  let manager: TestUser;
  let viewer: TestUser;

  beforeAll(async () => {
    smtp = await new FakeSmtp().start();
    app = await startTestApp(emailEnv(smtp.url, { SMTP_MAX_CONNECTIONS: '1', EMAIL_PAUSE_AFTER_ERRORS: '3' }));
    const admin = await registerAdmin(app);
    manager = await createUser(app, admin, 'manager');
    viewer = await createUser(app, admin, 'viewer');
    await seedContacts(app, { prefix: 'relay', count: 10, interests: ['relevo'] });
  });
  afterAll(async () => {
    await app.close();
    await smtp.stop();
  });

  const counts = async (campaignId: string) => {
    const rows = await app.runtime.deps.db.rows(
      sql<{ status: string; n: number }>`select status, count(*)::int as n from email_recipients where campaign_id = ${campaignId} group by status`,
    );
    return Object.fromEntries(rows.map((row) => [row.status, row.n]));
  };

  it('is paused after EMAIL_PAUSE_AFTER_ERRORS, tells the war room why, and sends the rest once a manager resumes it', async () => {
    const campaign = await createCampaign(app, manager, campaignBody((await createTemplate(app, manager)).id, { segment: { interestsAny: ['relevo'] } }));
    const socket = await connectSocket(app.url, viewer.token);
    const events: { name: string; payload: Record<string, unknown> }[] = [];
    socket.onAny((name: string, payload: Record<string, unknown>) => events.push({ name, payload }));
    try {
      expect(await subscribe(socket, ['email'])).toMatchObject({ joined: ['email'] });
      smtp.rejectEveryone = { code: 554, message: '5.7.1 Relay access denied' };
      await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth).expect(202);
      const paused = await until(() => events.find((event) => event.name === 'outbound:paused'), 15_000);
      expect(paused.payload).toEqual({
        channel: 'email',
        campaignId: campaign.id,
        consecutiveErrors: 3,
        notice: expect.stringMatching(/^Paused: 3 sends in a row failed \(last: 554 5\.7\.1 Relay access denied\)/),
      });
      await until(() => events.find((event) => event.name === 'email:campaign' && event.payload.status === 'paused'));
      const view = await app.http.get(`/api/email-marketing/campaigns/${campaign.id}`).set(viewer.auth).expect(200);
      expect(view.body).toMatchObject({ status: 'paused', notice: paused.payload.notice });
      // Three addresses burnt, not ten; nothing more is tried while it is paused. Outcomes are
      // written in batches beside the pause, so the third bounce may land just after the event.
      await until(async () => !('sending' in (await counts(campaign.id))), 5_000, 'outcomes written');
      expect(await counts(campaign.id)).toEqual({ bounced: 3, queued: 7 });
      expect([...smtp.rejectedAttempts.values()].reduce((sum, n) => sum + n, 0)).toBe(3);
      expect(JSON.stringify(events)).not.toContain('@example.org');

      expectProblem(await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/resume`).set(viewer.auth), 403);
      smtp.rejectEveryone = undefined;
      const resumed = await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/resume`).set(manager.auth).expect(200);
      expect(resumed.body).toMatchObject({ status: 'sending', notice: null });
      await waitForCampaign(app, campaign.id, (row) => row.status === 'sent');
      expect(await counts(campaign.id)).toEqual({ bounced: 3, sent: 7 });
      expect(smtp.accepted).toBe(7);
      expectProblem(await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/resume`).set(manager.auth), 409, 'not_paused');
      expectProblem(await app.http.post('/api/email-marketing/campaigns/0190f2a4-7b8c-7def-8123-456789abcdef/resume').set(manager.auth), 404);
      expectProblem(await app.http.post('/api/email-marketing/campaigns/nope/resume').set(manager.auth), 400);
    } finally {
      socket.close();
    }
  });
});
