import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createFileStore } from '../../src/kernel/file-store';
import { createMailer, outboxArea, outboxName } from '../../src/modules/email/providers/mailer';
import { FILE_STORES, fileStoreEnv, storedBytes, storedNames } from '../helpers/file-stores';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, registerAdmin } from '../helpers/users';
import { campaignBody, createCampaign, createTemplate, seedContacts, waitForCampaign } from './helpers';

const message = {
  fromName: 'Campaña',
  fromEmail: 'boletin@ejemplo.co',
  to: 'ana@example.org',
  replyTo: null,
  subject: 'Hola',
  html: '<p>Hola</p>',
  text: 'Hola',
  messageId: '<0190f2a4-7b8c-7def-8123-456789abcdef@ejemplo.co>',
  unsubscribeUrl: 'https://comando.example.org/e/u/token',
  campaignId: '0190f2a4-7b8c-7def-8123-456789abcdef',
};

function headers(raw: string): string {
  return raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
}

describe('the embedded outbox and DKIM', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'comando-outbox-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each(FILE_STORES)('writes each message as an .eml file when no SMTP_URL is set (%s file store)', async (store) => {
    const config = loadConfig({ DATA_DIR: dir, ...(await fileStoreEnv(store)) });
    expect(config.email.smtpUrl).toBeUndefined();
    const files = createFileStore(config.files);
    try {
      const mailer = createMailer(config.email, files);
      expect(await mailer.send(message)).toEqual({ kind: 'sent' });
      mailer.close();
      const name = '0190f2a4-7b8c-7def-8123-456789abcdef@ejemplo.co.eml';
      expect(await storedNames(files, 'outbox', { staged: true })).toEqual([name]);
      if (store === 'local') expect(readdirSync(path.join(dir, 'outbox'))).toEqual([name]);
      const raw = (await storedBytes(files, 'outbox', name))!.toString('utf8');
      expect(headers(raw)).toContain('List-Unsubscribe: <https://comando.example.org/e/u/token>');
      expect(headers(raw)).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
      // What a person's erasure does with their messages.
      await outboxArea(files).remove(outboxName(message.messageId));
      expect(await storedNames(files, 'outbox', { staged: true })).toEqual([]);
    } finally {
      files.close();
    }
  });

  it('signs List-Unsubscribe and List-Unsubscribe-Post with DKIM when configured (RFC 8058)', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const config = loadConfig({ DATA_DIR: dir, EMAIL_DKIM_DOMAIN: 'ejemplo.co', EMAIL_DKIM_SELECTOR: 'c2026', EMAIL_DKIM_PRIVATE_KEY: pem.replace(/\n/g, '\\n') });
    const mailer = createMailer(config.email, createFileStore(config.files));
    await mailer.send(message);
    mailer.close();
    const raw = readFileSync(path.join(dir, 'outbox', readdirSync(path.join(dir, 'outbox'))[0]!), 'utf8');
    const signature = /DKIM-Signature: ([^\r\n]+)/.exec(headers(raw))![1]!;
    expect(signature).toMatch(/d=ejemplo\.co;/);
    expect(signature).toMatch(/s=c2026;/);
    const signed = /(?:^|;)\s*h=([^;]+);/.exec(signature)![1]!.replace(/\s/g, '').toLowerCase().split(':');
    expect(signed).toEqual(expect.arrayContaining(['list-unsubscribe', 'list-unsubscribe-post', 'from', 'subject', 'message-id']));
  });

  it('refuses half a DKIM configuration', () => {
    expect(() => loadConfig({ EMAIL_DKIM_DOMAIN: 'ejemplo.co' })).toThrow(/EMAIL_DKIM_PRIVATE_KEY/);
    expect(() => loadConfig({ SMTP_URL: 'http://mail.example.org' })).toThrow(/SMTP_URL/);
  });

  describe('a whole campaign without SMTP_URL', () => {
    let app: TestApp;
    afterAll(() => app?.close());

    it('lands in the outbox', async () => {
      app = await startTestApp({ DATA_DIR: dir, SMTP_URL: undefined });
      const admin = await registerAdmin(app);
      const manager = await createUser(app, admin, 'manager');
      await seedContacts(app, { prefix: 'outbox', count: 3 });
      const campaign = await createCampaign(app, manager, campaignBody((await createTemplate(app, manager)).id));
      await app.http.post(`/api/email-marketing/campaigns/${campaign.id}/send`).set(manager.auth).expect(202);
      await waitForCampaign(app, campaign.id, (row) => row.status === 'sent');
      const files = readdirSync(path.join(dir, 'outbox'));
      expect(files).toHaveLength(3);
      const bodies = files.map((file) => readFileSync(path.join(dir, 'outbox', file), 'utf8'));
      expect(bodies.filter((raw) => /^To: outbox\d@example\.org/m.test(raw))).toHaveLength(3);
    });
  });
});
