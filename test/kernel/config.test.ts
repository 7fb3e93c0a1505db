import os from 'node:os';
import path from 'node:path';
import { testConfig } from '../helpers/app';
import { ConfigError, loadConfig, parseDurationSeconds } from '../../src/config';

describe('config', () => {
  it('has working defaults for the embedded mode', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
      redisUrl: undefined,
      timeZone: 'America/Bogota',
      publicBaseUrl: 'http://localhost:3000',
      jwtTtlSeconds: 12 * 3600,
      corsOrigins: [],
      bodyLimit: '1mb',
      // Production behaviour unless said otherwise: no answer turns into a 500 for drifting from its schema.
      env: 'production',
    });
    expect(config.dataDir).toMatch(/\/data$/);
    // A turnout request answers well before the brigade app's 15 s; a statement waits for a pooled connection 5 s at most.
    expect(config.gotvReports).toEqual({ lockTimeoutMs: 1000, statementTimeoutMs: 5000, deadlineMs: 10_000 });
    expect(config.databaseAcquireTimeoutMs).toBe(5000);
  });

  it('parses lists, durations and URLs', () => {
    const config = loadConfig({
      CORS_ORIGINS: 'https://a.example.org, https://b.example.org',
      JWT_TTL: '30m',
      PUBLIC_BASE_URL: 'https://comando.example.org/',
      DATABASE_URL: 'postgres://u:p@db:5432/comando',
      JWT_SECRET: 'x'.repeat(32),
    });
    expect(config.corsOrigins).toEqual(['https://a.example.org', 'https://b.example.org']);
    expect(config.jwtTtlSeconds).toBe(1800);
    expect(config.publicBaseUrl).toBe('https://comando.example.org');
  });

  it('reads an S3-compatible file store', () => {
    const config = loadConfig({
      FILE_STORE: 's3',
      S3_BUCKET: 'comando-archivos',
      S3_ENDPOINT: 'http://minio:9000',
      S3_ACCESS_KEY_ID: 'comando',
      S3_SECRET_ACCESS_KEY: 'una clave larga',
      S3_FORCE_PATH_STYLE: 'true',
      S3_PREFIX: 'produccion',
    });
    expect(config.files).toEqual({
      kind: 's3',
      bucket: 'comando-archivos',
      endpoint: 'http://minio:9000',
      region: 'us-east-1',
      credentials: { accessKeyId: 'comando', secretAccessKey: 'una clave larga' },
      forcePathStyle: true,
      prefix: 'produccion',
    });
    expect(loadConfig({ FILE_STORE: 's3', S3_BUCKET: 'comando' }).files).toMatchObject({ credentials: undefined, endpoint: undefined, forcePathStyle: false, prefix: '' });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ TIMEZONE: 'Mars/Olympus' }, 'TIMEZONE'],
    [{ DATABASE_URL: 'mysql://x', JWT_SECRET: 'x'.repeat(32) }, 'DATABASE_URL'],
    [{ REDIS_URL: 'http://localhost' }, 'REDIS_URL'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ DATABASE_URL: 'postgres://db/comando' }, 'JWT_SECRET'],
    [{ JWT_TTL: 'forever' }, 'JWT_TTL'],
    [{ CORS_ORIGINS: 'not a url' }, 'CORS_ORIGINS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ GOTV_REPORT_LOCK_TIMEOUT: '6000' }, 'GOTV_REPORT_LOCK_TIMEOUT'],
    [{ GOTV_REPORT_LOCK_TIMEOUT: '3000', GOTV_REPORT_STATEMENT_TIMEOUT: '20000', GOTV_REPORT_DEADLINE: '2000' }, 'GOTV_REPORT_LOCK_TIMEOUT'],
    [{ DATABASE_ACQUIRE_TIMEOUT: '0' }, 'DATABASE_ACQUIRE_TIMEOUT'],
    [{ HTTP_KEEP_ALIVE_TIMEOUT: 'forever' }, 'HTTP_KEEP_ALIVE_TIMEOUT'],
    [{ FILE_STORE: 'ftp' }, 'FILE_STORE'],
    [{ FILE_STORE: 's3' }, 'S3_BUCKET'],
    [{ FILE_STORE: 's3', S3_BUCKET: 'Not_A_Bucket' }, 'S3_BUCKET'],
    [{ FILE_STORE: 's3', S3_BUCKET: 'comando', S3_ACCESS_KEY_ID: 'AKIA' }, 'S3_SECRET_ACCESS_KEY'],
    [{ FILE_STORE: 's3', S3_BUCKET: 'comando', S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT'],
  ])('stops on %j with a message naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(variable));
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', REDIS_URL: '' }).databaseUrl).toBeUndefined();
  });

  it('reads durations', () => {
    expect(parseDurationSeconds('90')).toBe(90);
    expect(parseDurationSeconds('2h')).toBe(7200);
    expect(parseDurationSeconds('1d')).toBe(86400);
    expect(parseDurationSeconds('1 week')).toBeUndefined();
  });
});

describe("the tests' own files", () => {
  it("go under the system's temporary folder, never into the checkout's ./data", () => {
    const config = testConfig();
    const checkout = path.resolve(__dirname, '..', '..');
    expect(config.files).toEqual({ kind: 'local', dir: config.dataDir });
    expect(config.dataDir.startsWith(os.tmpdir())).toBe(true);
    expect(config.dataDir.startsWith(checkout)).toBe(false);
  });
});
