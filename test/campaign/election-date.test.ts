/**
 * One election day for the whole campaign: set in one place, read by finance, GOTV, the dashboard
 * and the volunteer pyramid; finance's and GOTV's own settings still take it and write it there.
 */
import { sql } from '../../src/kernel/sql';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

let app: TestApp;
let manager: TestUser;
let treasurer: TestUser;
let viewer: TestUser;
let brigade: TestUser;

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  treasurer = await createUser(app, admin, 'treasurer');
  viewer = await createUser(app, admin, 'viewer');
  brigade = await createUser(app, admin, 'brigade');
});
afterAll(() => app.close());

const dates = async () => {
  const [campaign, finance, gotv, summary] = await Promise.all([
    app.http.get('/api/campaign/settings').set(viewer.auth).expect(200),
    app.http.get('/api/finance/settings').set(manager.auth).expect(200),
    app.http.get('/api/gotv/settings').set(manager.auth).expect(200),
    app.http.get('/api/finance/summary').set(manager.auth).expect(200),
  ]);
  return { campaign: campaign.body.electionDate, finance: finance.body.electionDate, gotv: gotv.body.electionDate, summary: summary.body.electionDate };
};
const everywhere = (date: string | null) => ({ campaign: date, finance: date, gotv: date, summary: date });

describe('the campaign election date', () => {
  it('starts unset, and every module reads the one date the campaign sets', async () => {
    expect(await dates()).toEqual(everywhere(null));
    const saved = await app.http.put('/api/campaign/settings').set(manager.auth).send({ electionDate: '2027-03-14' }).expect(200);
    expect(saved.body).toEqual({ electionDate: '2027-03-14', updatedAt: expect.any(String) });
    expect(await dates()).toEqual(everywhere('2027-03-14'));
    // The volunteer pyramid counts to it too.
    expect((await app.http.get('/api/volunteers/pyramid').set(manager.auth).expect(200)).body.electionDate).toBe('2027-03-14');
  });

  it('is set through finance or GOTV as before, each visible to the other; omitted, it is kept', async () => {
    await app.http.put('/api/finance/settings').set(manager.auth).send({ spendingCap: 10_000_000, electionDate: '2027-05-30' }).expect(200);
    expect(await dates()).toEqual(everywhere('2027-05-30'));
    await app.http.put('/api/gotv/settings').set(manager.auth).send({ electionDate: '2027-06-20', opensAt: '07:00' }).expect(200);
    expect(await dates()).toEqual(everywhere('2027-06-20'));
    // Changing the other settings leaves the date alone.
    await app.http.put('/api/gotv/settings').set(manager.auth).send({ closesAt: '17:00' }).expect(200);
    await app.http.put('/api/finance/settings').set(manager.auth).send({ spendingCap: 20_000_000 }).expect(200);
    expect(await dates()).toEqual(everywhere('2027-06-20'));
    // Finance's audit trail still records a date changed through it.
    await app.http.put('/api/finance/settings').set(manager.auth).send({ spendingCap: 20_000_000, electionDate: null }).expect(200);
    expect(await dates()).toEqual(everywhere(null));
    const [audit] = await app.runtime.deps.db.rows<{ changes: Record<string, unknown> }>(sql`select changes from finance_audit where action = 'settings' order by at desc limit 1`);
    expect(audit!.changes).toEqual({ electionDate: { before: '2027-06-20', after: null } });
  });

  it('is read by every signed-in role, changed by managers only, and refuses bad input with 400', async () => {
    await app.http.get('/api/campaign/settings').set(brigade.auth).expect(200);
    expectProblem(await app.http.get('/api/campaign/settings'), 401);
    expectProblem(await app.http.put('/api/campaign/settings').set(treasurer.auth).send({ electionDate: '2027-03-14' }), 403);
    expectProblem(await app.http.put('/api/campaign/settings').set(viewer.auth).send({ electionDate: '2027-03-14' }), 403);
    for (const body of [{}, { electionDate: 'mañana' }, { electionDate: '2027-02-30' }, { electionDate: '2101-01-01' }, { electionDate: '2027-03-14', extra: 1 }, []]) {
      expectProblem(await app.http.put('/api/campaign/settings').set(manager.auth).send(body), 400, 'validation_failed');
    }
    expectProblem(await app.http.get('/api/campaign/settings?x=1').set(manager.auth), 400);
  });
});
