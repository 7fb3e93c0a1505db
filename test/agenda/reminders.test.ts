import { randomBytes } from 'node:crypto';
import { sql } from '../../src/kernel/sql';
import { sendDueReminders } from '../../src/modules/agenda/agenda.reminders';
import { contact, uniqueEmail, uniquePhone, type ContactOptions } from '../helpers/factories';
import { createUser, expectProblem, type TestUser } from '../helpers/users';
import { approvedTemplate, startWhatsAppTest, type WhatsAppTest } from '../whatsapp/setup';
import { base } from './helpers';
import { until } from '../helpers/wait';

let t: WhatsAppTest;
let volunteer: TestUser;
let template: string;
const hour = 3_600_000;

beforeAll(async () => {
  t = await startWhatsAppTest();
  volunteer = await createUser(t.app, t.admin, 'volunteer');
  template = `recordatorio_${randomBytes(3).toString('hex')}`;
  await approvedTemplate(t, {
    name: template,
    category: 'UTILITY',
    body: 'Te esperamos en {{1}}, {{2}}, en {{3}}.',
    examples: ['Cierre de campaña', 'sábado 20 de marzo, 7:00 p. m.', 'Parque principal'],
  });
}, 60_000);

afterAll(async () => {
  await t?.close();
});

/** A contact registered through audience with the consents given. */
async function person(options: ContactOptions): Promise<string> {
  return (await contact(t.app, options)).id;
}

async function event(title: string, hoursFromNow: number): Promise<{ id: string; startsAt: string }> {
  const start = new Date(Date.now() + hoursFromNow * hour);
  const response = await t.app.http
    .post(`${base}/events`)
    .set(t.manager.auth)
    .send({ title, type: 'rally', startsAt: start.toISOString(), endsAt: new Date(start.getTime() + 2 * hour).toISOString(), address: 'Parque de Usme' })
    .expect(201);
  return response.body;
}

const answer = (eventId: string, contactId: string, status: string) =>
  t.app.http.post(`${base}/events/${eventId}/rsvp`).set(t.manager.auth).send({ contactId, status }).expect(200);

const noticesOf = (eventId: string) =>
  t.app.runtime.deps.db.rows<{ key: string; contact_id: string; purpose: string; status: string; channel: string | null; reason: string | null }>(
    sql`select key, contact_id, purpose, status, channel, reason from notices where key like ${`agenda:%:${eventId}:%`} order by key`,
  );

describe('reminders and cancellations', () => {
  it('sends each reminder once across two processes, only to people going who consented to the channel', async () => {
    await t.app.http.put(`${base}/settings`).set(t.manager.auth).send({ reminderTemplate: template, cancellationTemplate: template, templateLanguage: 'es' }).expect(200);
    const phone = uniquePhone();
    const onWhatsApp = await person({ phone, whatsapp: true });
    const byEmail = await person({ email: uniqueEmail('ana'), emailConsent: true });
    const noConsent = await person({ phone: uniquePhone(), email: 'sin@example.org' });
    const declined = await person({ phone: uniquePhone(), whatsapp: true });

    const tomorrow = await event('Cierre de campaña en Usme', 20);
    const soon = await event('Caravana por la Boyacá', 1);
    const far = await event('Foro de seguridad', 72);
    for (const item of [tomorrow, soon, far]) {
      for (const contactId of [onWhatsApp, byEmail, noConsent]) await answer(item.id, contactId, 'going');
      await answer(item.id, declined, 'declined');
    }

    // Two processes sweep at the same time, twice over.
    const sibling = await t.app.sibling();
    const sweeps = await Promise.all([
      sendDueReminders(t.app.runtime.deps),
      sendDueReminders(sibling.runtime.deps),
      sendDueReminders(t.app.runtime.deps),
      sendDueReminders(sibling.runtime.deps),
    ]);
    expect(sweeps.reduce((sum, count) => sum + count, 0)).toBe(4); // two people reachable × two events due

    const dayBefore = await noticesOf(tomorrow.id);
    expect(dayBefore.map((notice) => [notice.contact_id, notice.status, notice.channel, notice.reason])).toEqual(
      expect.arrayContaining([
        [onWhatsApp, 'queued', 'whatsapp', null],
        [byEmail, 'queued', 'email', null],
        [noConsent, 'unreachable', null, 'no_consent'],
      ]),
    );
    expect(dayBefore).toHaveLength(3);
    expect(dayBefore.every((notice) => notice.key.startsWith('agenda:reminder:day_before:'))).toBe(true);
    const twoHours = await noticesOf(soon.id);
    expect(twoHours).toHaveLength(3);
    expect(twoHours.every((notice) => notice.key.startsWith('agenda:reminder:two_hours:'))).toBe(true);
    expect(await noticesOf(far.id)).toEqual([]);

    // What actually goes out: one WhatsApp message per event to the person who consented to WhatsApp, none to the others.
    const messages = (contactId: string) => t.app.runtime.deps.db.rows(sql`select id from wa_messages where contact_id = ${contactId}::uuid`);
    expect(await messages(onWhatsApp)).toHaveLength(2);
    expect(await messages(noConsent)).toHaveLength(0);
    expect(await messages(declined)).toHaveLength(0);
    const emails = await t.app.runtime.deps.db.rows<{ subject: string }>(sql`select subject from email_notices where contact_id = ${byEmail}::uuid order by subject`);
    expect(emails.map((email) => email.subject)).toEqual(['Te esperamos en dos horas: Caravana por la Boyacá', 'Te esperamos mañana: Cierre de campaña en Usme']);
    await until(async () => t.fake.sendsTo(phone.slice(1)).length === 2, 20_000, 'the two WhatsApp reminders');
    const sent = t.fake.sendsTo(phone.slice(1)) as Array<{ template: { name: string; params: string[] } }>;
    expect(sent.map((send) => send.template.name)).toEqual([template, template]);
    expect(sent.map((send) => send.template.params[0]).sort()).toEqual(['Caravana por la Boyacá', 'Cierre de campaña en Usme']);
    expect(sent.every((send) => send.template.params[2] === 'Parque de Usme')).toBe(true);

    // Nothing more is due; moving an event re-arms its reminders for the new time.
    expect(await sendDueReminders(t.app.runtime.deps)).toBe(0);
    const moved = new Date(Date.parse(soon.startsAt) + 30 * 60_000);
    await t.app.http
      .patch(`${base}/events/${soon.id}`)
      .set(t.manager.auth)
      .send({ startsAt: moved.toISOString(), endsAt: new Date(moved.getTime() + hour).toISOString() })
      .expect(200);
    expect(await sendDueReminders(t.app.runtime.deps)).toBe(2);
    expect(await noticesOf(soon.id)).toHaveLength(6);

    // Cancelling tells everyone who was going, once.
    await t.app.http.patch(`${base}/events/${tomorrow.id}`).set(t.manager.auth).send({ status: 'cancelled', cancellationReason: 'Alerta por lluvias' }).expect(200);
    const cancelled = (await noticesOf(tomorrow.id)).filter((notice) => notice.purpose === 'agenda.cancelled');
    expect(cancelled.map((notice) => [notice.contact_id, notice.status]).sort()).toEqual(
      [
        [onWhatsApp, 'queued'],
        [byEmail, 'queued'],
        [noConsent, 'unreachable'],
      ].sort(),
    );
    const cancelMail = await t.app.runtime.deps.db.first<{ text: string }>(
      sql`select text from email_notices where contact_id = ${byEmail}::uuid and subject like 'Evento cancelado%'`,
    );
    expect(cancelMail?.text).toContain('Motivo: Alerta por lluvias');
    await until(async () => t.fake.sendsTo(phone.slice(1)).length === 4, 20_000, 'the cancellation and the moved reminder');
  });

  it('tells someone promoted from the waitlist that they have a place', async () => {
    const first = await person({ email: uniqueEmail('uno'), emailConsent: true });
    const second = await person({ email: uniqueEmail('dos'), emailConsent: true });
    const start = new Date(Date.now() + 72 * hour);
    const small = await t.app.http
      .post(`${base}/events`)
      .set(t.manager.auth)
      .send({ title: 'Desayuno con líderes', type: 'meeting', startsAt: start.toISOString(), endsAt: new Date(start.getTime() + hour).toISOString(), capacity: 1 })
      .expect(201);
    await answer(small.body.id, first, 'going');
    await answer(small.body.id, second, 'going');
    expect((await noticesOf(small.body.id)).filter((notice) => notice.purpose === 'agenda.promoted')).toEqual([]);
    const declined = await answer(small.body.id, first, 'declined');
    expect(declined.body.promoted).toEqual([second]);
    const promoted = (await noticesOf(small.body.id)).filter((notice) => notice.purpose === 'agenda.promoted');
    expect(promoted).toEqual([expect.objectContaining({ contact_id: second, status: 'queued', channel: 'email' })]);
    const mail = await t.app.runtime.deps.db.first<{ subject: string; text: string }>(sql`select subject, text from email_notices where contact_id = ${second}::uuid`);
    expect(mail?.subject).toBe('Se liberó un cupo para ti: Desayuno con líderes');
    expect(mail?.text).toContain('Cuándo:');
  });

  it('keeps the settings to managers and refuses bad ones', async () => {
    const current = await t.app.http.get(`${base}/settings`).set(t.manager.auth).expect(200);
    expect(current.body).toMatchObject({ templateLanguage: 'es', remindersEnabled: true });
    expectProblem(await t.app.http.get(`${base}/settings`).set(volunteer.auth), 403);
    expectProblem(await t.app.http.put(`${base}/settings`).set(volunteer.auth).send({ reminderTemplate: null, cancellationTemplate: null }), 403);
    expectProblem(await t.app.http.put(`${base}/settings`).set(t.manager.auth).send({ reminderTemplate: null, cancellationTemplate: null, templateLanguage: 'Spanish' }), 400);
    expectProblem(await t.app.http.put(`${base}/settings`).set(t.manager.auth).send({ reminderTemplate: '', cancellationTemplate: null }), 400);
    expectProblem(await t.app.http.put(`${base}/settings`).set(t.manager.auth).send({}), 400);
    const off = await t.app.http.put(`${base}/settings`).set(t.manager.auth).send({ reminderTemplate: null, cancellationTemplate: null, remindersEnabled: false }).expect(200);
    expect(off.body).toMatchObject({ reminderTemplate: null, remindersEnabled: false });
    const item = await event('Reunión sin recordatorios', 3);
    await answer(item.id, await person({ phone: uniquePhone(), whatsapp: true }), 'going');
    expect(await sendDueReminders(t.app.runtime.deps)).toBe(0);
  });
});
