import { sql } from '../../src/kernel/sql';
import { erasedSuppressionKey, suppressed } from '../../src/modules/email/email.personal-data';
import { startTestApp, type TestApp } from '../helpers/app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const isSuppressed = async (address: string) =>
  (await app.runtime.deps.db.first(sql<{ suppressed: boolean }>`select ${suppressed(sql`${address}::text`)} as suppressed`))!.suppressed;

it('finds an address suppressed in the clear or, once its owner was erased, by the hash erasure left', async () => {
  const db = app.runtime.deps.db;
  await db.write(sql`insert into email_suppressions (email, reason, created_at) values ('rebote@ejemplo.co', 'bounce', now())`);
  // What erasure writes (the hash computed here, in TypeScript) is what the check computes in SQL.
  await db.write(sql`insert into email_suppressions (email, reason, created_at) values (${erasedSuppressionKey('José.Pérez@Correo.co')}, 'bounce', now())`);
  expect(await isSuppressed('rebote@ejemplo.co')).toBe(true);
  expect(await isSuppressed('REBOTE@ejemplo.co')).toBe(true);
  expect(await isSuppressed('josé.pérez@correo.co')).toBe(true);
  expect(await isSuppressed('jose.perez@correo.co')).toBe(false);
  expect(await isSuppressed('otra@ejemplo.co')).toBe(false);
});
