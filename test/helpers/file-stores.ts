import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { FileStore } from '../../src/kernel/file-store';

/** The file store's back ends: tests that touch stored files run once on each. */
export const FILE_STORES = ['local', 's3'] as const;
export type FileStoreKind = (typeof FILE_STORES)[number];

export const TEST_BUCKET = 'comando-test';

interface RunningS3 {
  endpoint: string;
  close(): Promise<void>;
}

let running: Promise<RunningS3> | undefined;

/** A real S3-compatible server (s3rver) in this test file's process, on a free port, with its objects in a temporary folder. */
async function startS3(): Promise<RunningS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'comando-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: TEST_BUCKET, configs: [] }] });
  const address = await server.run();
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

afterAll(async () => {
  const server = running;
  running = undefined;
  if (server) await (await server).close();
});

/** The S3 settings of a store of its own (a fresh key prefix) in the test file's S3 server, started on first use. */
export async function s3Env(prefix = `t${randomBytes(4).toString('hex')}`): Promise<Record<string, string>> {
  running ??= startS3();
  const { endpoint } = await running;
  return {
    FILE_STORE: 's3',
    S3_ENDPOINT: endpoint,
    S3_BUCKET: TEST_BUCKET,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
    S3_PREFIX: prefix,
  };
}

/** Overrides for `startTestApp` that pick the back end (`local` keeps DATA_DIR). */
export async function fileStoreEnv(kind: FileStoreKind): Promise<Record<string, string>> {
  return kind === 's3' ? s3Env() : { FILE_STORE: 'local' };
}

/** The names in one area of a process's store, staged files left out unless asked for. */
export async function storedNames(files: FileStore, area: string, { staged = false } = {}): Promise<string[]> {
  const names = (await files.area(area).list()).map((entry) => entry.name);
  return names.filter((name) => staged || !name.startsWith('.')).sort();
}

/** A stored file's bytes, or undefined when it is not there. */
export async function storedBytes(files: FileStore, area: string, name: string): Promise<Buffer | undefined> {
  const file = await files.area(area).read(name);
  if (!file) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of file.stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
