import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The suite's database: the migrated template every test file clones (override with DATABASE_URL). */
export const templateUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/comando_test';
export const testRedisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/15';

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export const templateName = new URL(templateUrl).pathname.slice(1);

/**
 * Where tests' files go (emails kept as .eml, PQRS attachments, incident photos) unless a test
 * names its own folder: under the system's temporary folder, one per test database (so two
 * checkouts' runs keep apart), emptied at the start of each run — never the developer's ./data.
 */
export const testDataDir = path.join(os.tmpdir(), 'comando-test-data', templateName);
export const adminUrl = withDatabase(templateUrl, 'postgres');

export async function withAdmin<T>(run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh database cloned from the migrated template: each test file starts clean. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `${templateName}_${randomBytes(5).toString('hex')}`;
  await withAdmin(async (client) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`create database "${name}" template "${templateName}"`);
        return;
      } catch (error) {
        // Two files cloning at the same instant: "source database is being accessed by other users".
        if (attempt >= 20 || !/being accessed/.test((error as Error).message)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      }
    }
  });
  return {
    url: withDatabase(templateUrl, name),
    name,
    drop: () => withAdmin(async (client) => void (await client.query(`drop database if exists "${name}" with (force)`))),
  };
}
