import { startTestApp, type TestApp } from '../helpers/app';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

/**
 * Failed logins are limited for one account from one address first, with ceilings for the account
 * (from every address) and the address (over every account) that do not hold back an address the
 * account signed in from lately. Addresses come from X-Forwarded-For (TRUST_PROXY).
 */
let app: TestApp;
let admin: TestUser;
beforeAll(async () => {
  // The default limits: 5 for an account from one address, 50 for the account, 50 for an address.
  app = await startTestApp({ TRUST_PROXY: 'true' });
  admin = await registerAdmin(app);
});
afterAll(() => app.close());

const login = (email: string, password: string, ip: string) => app.http.post('/api/auth/login').set('X-Forwarded-For', ip).send({ email, password });

async function fail(email: string, ip: string, times: number): Promise<void> {
  for (let attempt = 0; attempt < times; attempt++) expect((await login(email, `wrong guess ${attempt}`, ip)).status).toBe(401);
}

it("lets the owner sign in from another address after an attacker's five failures, and locks the attacker's address out of the account", async () => {
  const owner = await createUser(app, admin, 'manager');
  await fail(owner.email, '203.0.113.7', 5);
  const attacker = await login(owner.email, owner.password, '203.0.113.7');
  expectProblem(attacker, 429, 'rate_limited');
  expect(Number(attacker.headers['retry-after'])).toBeGreaterThan(0);
  await login(owner.email, owner.password, '198.51.100.20').expect(200);
});

it("does not lock out the others behind one address for one user's failures", async () => {
  const office = '192.0.2.10';
  const forgetful = await createUser(app, admin, 'volunteer');
  const colleagues = [await createUser(app, admin, 'brigade'), await createUser(app, admin, 'brigade'), await createUser(app, admin, 'viewer')];
  // Someone who keeps trying their own account: after five, their attempts are refused uncounted.
  await fail(forgetful.email, office, 5);
  for (let attempt = 0; attempt < 15; attempt++) expect((await login(forgetful.email, 'still wrong', office)).status).toBe(429);
  for (const colleague of colleagues) await login(colleague.email, colleague.password, office).expect(200);
});

it('does not let someone guessing at many accounts from the office lock out staff who sign in there', async () => {
  const office = '192.0.2.20';
  const staff = [await createUser(app, admin, 'brigade'), await createUser(app, admin, 'manager')];
  for (const member of staff) await login(member.email, member.password, office).expect(200);
  // Five guesses at each of ten accounts: the address's ceiling (50) is reached.
  for (let target = 0; target < 10; target++) await fail(`target-${target}@example.org`, office, 5);
  // A new account there is held back; staff who signed in there are not.
  const stranger = await createUser(app, admin, 'volunteer');
  expectProblem(await login(stranger.email, stranger.password, office), 429, 'rate_limited');
  for (const member of staff) await login(member.email, member.password, office).expect(200);
});

it("still stops a guess spread over many addresses at the account's ceiling, but not its owner at home", async () => {
  const owner = await createUser(app, admin, 'manager');
  const home = '198.51.100.77';
  await login(owner.email, owner.password, home).expect(200);
  for (let ip = 1; ip <= 10; ip++) await fail(owner.email, `203.0.113.${100 + ip}`, 5);
  // Fifty failures, five from each address: the account's ceiling holds even the right password.
  expectProblem(await login(owner.email, owner.password, '203.0.113.200'), 429, 'rate_limited');
  expectProblem(await login(owner.email, 'another guess', '203.0.113.201'), 429, 'rate_limited');
  await login(owner.email, owner.password, home).expect(200);
});
