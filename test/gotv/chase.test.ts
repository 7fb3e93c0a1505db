import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';
import { until } from '../helpers/wait';

let app: TestApp;
let manager: TestUser;
let memberA: TestUser;
let memberB: TestUser;
let outsider: TestUser;
const voters: string[] = [];
let foreign: string;

beforeAll(async () => {
  app = await startTestApp();
  const admin = await registerAdmin(app);
  manager = await createUser(app, admin, 'manager');
  memberA = await createUser(app, admin, 'brigade');
  memberB = await createUser(app, admin, 'brigade');
  outsider = await createUser(app, admin, 'brigade');
  const station = async (code: string) =>
    (await app.http.post('/api/gotv/polling-stations').set(manager.auth).send({ code, name: code, lat: 4.6, lng: -74.1, tables: 5, registeredVoters: 1000 }).expect(201)).body
      .id as string;
  const ours = await station('OURS');
  const theirs = await station('THEIRS');
  for (let i = 0; i < 5; i++) {
    voters.push(
      (
        await app.http
          .post('/api/gotv/voters')
          .set(manager.auth)
          .send({ name: `V${i}`, documentId: `4000000${i}`, pollingStationId: ours })
          .expect(201)
      ).body.id,
    );
  }
  foreign = (await app.http.post('/api/gotv/voters').set(manager.auth).send({ name: 'Ajeno', documentId: '50000001', pollingStationId: theirs }).expect(201)).body.id;
  await app.http
    .post('/api/gotv/brigades')
    .set(manager.auth)
    .send({ name: 'B', memberIds: [memberA.id, memberB.id], stationIds: [ours] })
    .expect(201);
});
afterAll(() => app.close());

const claim = (user: TestUser, voterId: string) => app.http.post(`/api/gotv/voters/${voterId}/claim`).set(user.auth);
const contact = (user: TestUser, voterId: string, outcome: string) => app.http.post(`/api/gotv/voters/${voterId}/contacts`).set(user.auth).send({ outcome });
const contactsOf = async (voterId: string) =>
  (await app.runtime.deps.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from gotv_voter_contacts where voter_id = ?', [voterId]))[0]!.n;

describe('chasing pending voters', () => {
  it('gives a voter to exactly one of two people claiming at once', async () => {
    const [a, b] = await Promise.all([claim(memberA, voters[0]!), claim(memberB, voters[0]!)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const loser = a.status === 409 ? a : b;
    expectProblem(loser, 409, 'voter_claimed');
    const winner = a.status === 200 ? memberA : memberB;
    await claim(winner, voters[0]!).expect(200); // renewing one's own claim
  });

  it('moves the voter along with the outcome and releases the claim', async () => {
    await claim(memberA, voters[1]!).expect(200);
    const reached = await contact(memberA, voters[1]!, 'reached').expect(201);
    expect(reached.body).toMatchObject({ outcome: 'reached', voterStatus: 'contacted' });
    await claim(memberB, voters[1]!).expect(200);
    const noAnswer = await contact(memberB, voters[1]!, 'no_answer').expect(201);
    expect(noAnswer.body.voterStatus).toBe('contacted');
    expect((await contact(memberB, voters[1]!, 'on_the_way').expect(201)).body.voterStatus).toBe('on_the_way');
  });

  it("refuses a brigade member's outcome on a voter a colleague has claimed, and keeps the colleague's claim", async () => {
    const voterId = voters[4]!;
    await claim(memberA, voterId).expect(200);
    expectProblem(await contact(memberB, voterId, 'reached'), 409, 'voter_claimed');
    expectProblem(await contact(memberB, voterId, 'no_answer'), 409, 'voter_claimed');
    const held = (await app.http.get(`/api/gotv/voters/${voterId}`).set(manager.auth).expect(200)).body;
    expect(held).toMatchObject({ claimedBy: memberA.id, status: 'pending' });
    expect(await contactsOf(voterId)).toBe(0);
    expectProblem(await claim(memberB, voterId), 409, 'voter_claimed');

    // A manager may log an outcome on anyone's voter; it releases the claim.
    expect((await contact(manager, voterId, 'no_answer').expect(201)).body.voterStatus).toBe('pending');
    expect((await app.http.get(`/api/gotv/voters/${voterId}`).set(manager.auth).expect(200)).body.claimedBy).toBeNull();

    // The claimer's own outcome releases their claim; an unclaimed voter takes anyone's outcome.
    await claim(memberB, voterId).expect(200);
    expect((await contact(memberB, voterId, 'reached').expect(201)).body.voterStatus).toBe('contacted');
    expect((await app.http.get(`/api/gotv/voters/${voterId}`).set(manager.auth).expect(200)).body.claimedBy).toBeNull();
    await contact(memberA, voterId, 'on_the_way').expect(201);
    expect(await contactsOf(voterId)).toBe(3);
  });

  it('never moves a voted voter back, and a voted voter cannot be claimed', async () => {
    await app.http.post('/api/gotv/turnout').set(manager.auth).send({ kind: 'voter', clientReportId: randomUUID(), voterId: voters[2] }).expect(201);
    expectProblem(await claim(memberA, voters[2]!), 409, 'already_voted');
    expect((await contact(memberA, voters[2]!, 'reached').expect(201)).body.voterStatus).toBe('voted');
  });

  it('keeps brigade members to their own voters and validates input', async () => {
    expectProblem(await claim(memberA, foreign), 403);
    expectProblem(await claim(outsider, voters[3]!), 403);
    expectProblem(await contact(memberA, voters[3]!, 'teleported'), 400);
    expectProblem(await claim(memberA, '01960000-0000-7000-8000-000000000000'), 404);
    expectProblem(await claim(memberA, 'xyz'), 400);
    expectProblem(await app.http.post(`/api/gotv/voters/${voters[3]}/claim`), 401);
  });

  it('gives brigade members their call list: only their voters, and free ones apart from their own claims', async () => {
    const listed = async (user: TestUser, query: string) =>
      (await app.http.get(`/api/gotv/voters?${query}`).set(user.auth).expect(200)).body.data as { id: string; claimedBy: string | null }[];
    await claim(memberA, voters[3]!).expect(200);
    const mine = await listed(memberA, 'claim=mine');
    expect(mine.map((voter) => voter.id)).toContain(voters[3]);
    expect(mine.every((voter) => voter.claimedBy === memberA.id)).toBe(true);
    const freeForB = (await listed(memberB, 'status=pending&claim=free')).map((voter) => voter.id);
    expect(freeForB).not.toContain(voters[3]);
    expect(freeForB).not.toContain(foreign);
    expect(await listed(outsider, '')).toEqual([]);
    expect((await listed(manager, 'claim=free')).map((voter) => voter.id)).toContain(foreign);
    expect((await app.http.get(`/api/gotv/voters/${voters[3]}`).set(memberB.auth).expect(200)).body.claimedBy).toBe(memberA.id);
    expectProblem(await app.http.get(`/api/gotv/voters/${foreign}`).set(memberA.auth), 403);
    expectProblem(await app.http.get('/api/gotv/voters?claim=everyone').set(memberA.auth), 400);
  });

  it('releases a claim: the claimer or a manager, nobody else', async () => {
    await claim(memberA, voters[0]!)
      .expect(200)
      .catch(async () => undefined);
    const holder = (await app.http.get(`/api/gotv/voters/${voters[0]}`).set(manager.auth).expect(200)).body.claimedBy as string | null;
    if (holder !== memberA.id) {
      await app.http.delete(`/api/gotv/voters/${voters[0]}/claim`).set(manager.auth).expect(204);
      await claim(memberA, voters[0]!).expect(200);
    }
    expectProblem(await app.http.delete(`/api/gotv/voters/${voters[0]}/claim`).set(memberB.auth), 403);
    await app.http.delete(`/api/gotv/voters/${voters[0]}/claim`).set(memberA.auth).expect(204);
    expect((await app.http.get(`/api/gotv/voters/${voters[0]}`).set(manager.auth).expect(200)).body.claimedBy).toBeNull();
    await claim(memberB, voters[0]!).expect(200);
    await app.http.delete(`/api/gotv/voters/${voters[0]}/claim`).set(manager.auth).expect(204);
    await app.http.delete(`/api/gotv/voters/${voters[0]}/claim`).set(manager.auth).expect(204); // nothing to release
    expectProblem(await app.http.delete(`/api/gotv/voters/${foreign}/claim`).set(memberA.auth), 403);
    expectProblem(await app.http.delete('/api/gotv/voters/01960000-0000-7000-8000-000000000000/claim').set(manager.auth), 404);
  });
});

describe('claim expiry', () => {
  // Its own app, so that a 1-second GOTV_CLAIM_TTL cannot expire the claims of the tests above.
  let shortApp: TestApp;
  let chaser: TestUser;
  let colleague: TestUser;
  let voterId: string;

  beforeAll(async () => {
    shortApp = await startTestApp({ GOTV_CLAIM_TTL: '1' });
    const admin = await registerAdmin(shortApp);
    const boss = await createUser(shortApp, admin, 'manager');
    chaser = await createUser(shortApp, admin, 'brigade');
    colleague = await createUser(shortApp, admin, 'brigade');
    const station = (
      await shortApp.http.post('/api/gotv/polling-stations').set(boss.auth).send({ code: 'S', name: 'S', lat: 4.6, lng: -74.1, tables: 5, registeredVoters: 1000 }).expect(201)
    ).body.id;
    voterId = (await shortApp.http.post('/api/gotv/voters').set(boss.auth).send({ name: 'Corto', documentId: '60000001', pollingStationId: station }).expect(201)).body.id;
    await shortApp.http
      .post('/api/gotv/brigades')
      .set(boss.auth)
      .send({ name: 'B', memberIds: [chaser.id, colleague.id], stationIds: [station] })
      .expect(201);
  });
  afterAll(() => shortApp.close());

  it('puts a claimed voter back on the call list once GOTV_CLAIM_TTL has passed', async () => {
    const callList = async (user: TestUser) =>
      ((await shortApp.http.get('/api/gotv/voters?status=pending&claim=free').set(user.auth).expect(200)).body.data as { id: string }[]).map((voter) => voter.id);
    const claimed = await shortApp.http.post(`/api/gotv/voters/${voterId}/claim`).set(chaser.auth).expect(200);
    const claimedUntil = Date.parse(claimed.body.claimedUntil);
    expect(claimedUntil - Date.now()).toBeLessThanOrEqual(1000);
    expect(await callList(colleague)).not.toContain(voterId);
    expectProblem(await shortApp.http.post(`/api/gotv/voters/${voterId}/claim`).set(colleague.auth), 409, 'voter_claimed');

    // Back on the list once the claim ends, and not before.
    await until(async () => (await callList(colleague)).includes(voterId), 10_000, 'the voter back on the call list');
    expect(Date.now()).toBeGreaterThanOrEqual(claimedUntil);
    expect((await shortApp.http.get(`/api/gotv/voters/${voterId}`).set(colleague.auth).expect(200)).body.claimedBy).toBeNull();
    await shortApp.http.post(`/api/gotv/voters/${voterId}/claim`).set(colleague.auth).expect(200);
  });

  it('answers a resent outcome (same clientId) with the first one and records it once', async () => {
    const voterId = (
      await app.http
        .post('/api/gotv/voters')
        .set(manager.auth)
        .send({ name: 'Reenvío', documentId: '40000099', pollingStationId: (await app.http.get(`/api/gotv/voters/${voters[0]}`).set(manager.auth)).body.pollingStationId })
        .expect(201)
    ).body.id as string;
    const clientId = randomUUID();
    const send = (user: TestUser, outcome = 'reached') => app.http.post(`/api/gotv/voters/${voterId}/contacts`).set(user.auth).send({ outcome, clientId });
    const first = await send(memberA).expect(201);
    const again = await send(memberA).expect(200);
    expect(again.body).toEqual(first.body);
    // Even while a colleague now holds the claim, the resend is answered, not refused.
    await claim(memberB, voterId).expect(200);
    expect((await send(memberA).expect(200)).body).toEqual(first.body);
    const together = await Promise.all([0, 1, 2].map(() => send(memberA)));
    expect(together.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(await contactsOf(voterId)).toBe(1);
    // Three copies of a new outcome at once: one recorded, the others answered with it.
    const racing = randomUUID();
    const raced = await Promise.all([0, 1, 2].map(() => app.http.post(`/api/gotv/voters/${voterId}/contacts`).set(manager.auth).send({ outcome: 'no_answer', clientId: racing })));
    expect(raced.map((answer) => answer.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(raced.map((answer) => answer.body.id)).size).toBe(1);
    expect(await contactsOf(voterId)).toBe(2);
    // The clientId is the reporter's own: a colleague's same id is a new outcome.
    await app.http.delete(`/api/gotv/voters/${voterId}/claim`).set(memberB.auth).expect(204);
    await send(memberB, 'no_answer').expect(201);
    expect(await contactsOf(voterId)).toBe(3);
    expectProblem(await app.http.post(`/api/gotv/voters/${voters[1]}/contacts`).set(memberA.auth).send({ outcome: 'reached', clientId }), 409, 'client_id_reused');
    expectProblem(await app.http.post(`/api/gotv/voters/${voterId}/contacts`).set(memberA.auth).send({ outcome: 'reached', clientId: 'not-a-uuid' }), 400);
  });
});
