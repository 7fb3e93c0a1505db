import { countSegment, segmentBatches, withdrawConsent, type Channel, type Segment } from '../../src/modules/audience';
import { startTestApp, type TestApp } from '../helpers/app';
import { campaignBody, createCampaign, generateCodes, lead } from '../helpers/qr';
import { createUser, registerAdmin } from '../helpers/users';

/**
 * The segment resolver the WhatsApp and email modules send through: consent per channel,
 * opt-outs, interests, territories (with everything inside them), origin and dates.
 */
let app: TestApp;
let kennedy: string;
let timiza: string;
let suba: string;
let campaignA: string;
let campaignB: string;

const db = () => app.runtime.deps.db;
const count = (segment: Segment, channel: Channel) => countSegment(db(), segment, channel);

async function names(segment: Segment, channel: Channel, batchSize = 1000): Promise<string[]> {
  const out: string[] = [];
  for await (const batch of segmentBatches(db(), segment, channel, batchSize)) out.push(...batch.map((member) => member.name));
  return out.sort();
}

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  const manager = await createUser(app, admin, 'manager');
  const territory = async (body: object) => (await app.http.post('/api/territories').set(manager.auth).send(body).expect(201)).body.id as string;
  const bogota = await territory({ name: 'Bogotá', type: 'municipality' });
  kennedy = await territory({ name: 'Kennedy', type: 'commune', parentId: bogota });
  timiza = await territory({ name: 'Timiza', type: 'neighbourhood', parentId: kennedy });
  suba = await territory({ name: 'Suba', type: 'commune', parentId: bogota });
  const fields = { phone: 'optional', email: 'optional', documentId: 'hidden', neighbourhood: 'optional' };
  const landing = campaignBody().landing;
  campaignA = (await createCampaign(app, manager, { landing: { ...landing, fields } })).id;
  campaignB = (await createCampaign(app, manager, { landing: { ...landing, fields } })).id;
  const [codeA] = await generateCodes(app, manager, campaignA, { count: 1 });
  const [codeB] = await generateCodes(app, manager, campaignB, { count: 1 });
  const capture = (code: string, body: Record<string, unknown>) =>
    app.http
      .post('/api/qr-leads/capture')
      .send(lead(code, body))
      .expect((response) => expect(response.status).toBeLessThan(300));
  await capture(codeA!.code, {
    name: 'Ana',
    phone: '3001000001',
    email: 'ana@example.org',
    interests: ['salud', 'empleo'],
    territoryId: timiza,
    whatsappOptIn: true,
    emailOptIn: true,
  });
  await capture(codeA!.code, { name: 'Beto', phone: '3001000002', email: 'shared@example.org', interests: ['salud'], territoryId: suba, whatsappOptIn: true, emailOptIn: true });
  await capture(codeB!.code, { name: 'Caro', phone: '3001000003', email: 'SHARED@example.org', interests: ['seguridad'], whatsappOptIn: false, emailOptIn: true });
  await capture(codeB!.code, { name: 'Dani', phone: undefined, email: 'dani@example.org', interests: ['empleo'], whatsappOptIn: true, emailOptIn: false });
  await capture(codeB!.code, { name: 'Eva', phone: '3001000005', email: undefined, interests: ['salud'], territoryId: kennedy, whatsappOptIn: true });
  // Eva later sends "BAJA": opted out of WhatsApp.
  await withdrawConsent(db(), { phone: '+573001000005' }, 'whatsapp', { source: 'staff', sourceRef: null, evidence: 'test' });
});
afterAll(() => app.close());

describe('segments', () => {
  it('reach only people who opted in to the channel and did not opt out', async () => {
    expect(await names({}, 'whatsapp')).toEqual(['Ana', 'Beto']);
    expect(await count({}, 'whatsapp')).toBe(2);
  });

  it('count an email address once even when two contacts share it', async () => {
    expect(await names({}, 'email')).toEqual(['Ana', 'Beto']);
    expect(await count({}, 'email')).toBe(2);
  });

  it('select by interests, any or all', async () => {
    // Caro shares Beto's inbox, but only Caro is in this selection: she stands for it.
    expect(await names({ interestsAny: ['empleo', 'seguridad'] }, 'email')).toEqual(['Ana', 'Caro']);
    expect(await names({ interestsAll: ['salud', 'empleo'] }, 'whatsapp')).toEqual(['Ana']);
    expect(await names({ interestsAny: ['salud'] }, 'whatsapp')).toEqual(['Ana', 'Beto']);
  });

  it('select a territory with everything inside it', async () => {
    expect(await names({ territoryIds: [kennedy] }, 'whatsapp')).toEqual(['Ana']);
    expect(await names({ territoryIds: [suba, timiza] }, 'whatsapp')).toEqual(['Ana', 'Beto']);
  });

  it('select by QR campaign of origin and by creation time', async () => {
    expect(await names({ qrCampaignIds: [campaignA] }, 'whatsapp')).toEqual(['Ana', 'Beto']);
    expect(await names({ qrCampaignIds: [campaignB] }, 'whatsapp')).toEqual([]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(await count({ createdFrom: future }, 'whatsapp')).toBe(0);
    expect(await count({ createdTo: future }, 'whatsapp')).toBe(2);
  });

  it('stream members in batches without losing or repeating anyone', async () => {
    expect(await names({}, 'whatsapp', 1)).toEqual(['Ana', 'Beto']);
  });
});
