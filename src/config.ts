import path from 'node:path';
import { z } from 'zod';
import { knownHolidayCountry } from './kernel/business-days';

/**
 * Every setting Comando reads, parsed from the environment in one place.
 * A bad value stops start-up with a message that names the variable.
 */

const durationPattern = /^(\d+)\s*(s|m|h|d)?$/;
const durationUnits: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** "900", "15m", "12h", "7d" → seconds. */
export function parseDurationSeconds(value: string): number | undefined {
  const match = durationPattern.exec(value.trim());
  if (!match) return undefined;
  return Number(match[1]) * durationUnits[match[2] ?? 's']!;
}

const duration = z.string().transform((value, ctx) => {
  const seconds = parseDurationSeconds(value);
  if (seconds === undefined || seconds <= 0) {
    ctx.addIssue({ code: 'custom', message: 'expected a duration such as 900, 15m, 12h or 7d' });
    return z.NEVER;
  }
  return seconds;
});

const positiveInt = z.coerce.number().int().positive();

const postgresUrl = z
  .string()
  .url()
  .refine((value) => /^postgres(ql)?:\/\//.test(value), 'expected a postgres:// URL');

const redisUrl = z
  .string()
  .url()
  .refine((value) => /^rediss?:\/\//.test(value), 'expected a redis:// or rediss:// URL');

const timeZone = z.string().refine((value) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}, 'expected an IANA time zone such as America/Bogota');

const booleanFlag = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((value) => value === 'true' || value === '1' || value === 'yes');

const envSchema = z
  .object({
    // Production unless said otherwise: outside it every answer is checked against its schema, and
    // a deployment that forgot to say would turn a harmless drift into 500s.
    NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATABASE_URL: postgresUrl.optional(),
    DATABASE_POOL_MAX: positiveInt.default(10),
    // How long a statement may wait for a pooled connection before its request answers 503 (ms).
    DATABASE_ACQUIRE_TIMEOUT: z.coerce.number().int().min(100).max(600_000).default(5000),
    REDIS_URL: redisUrl.optional(),
    // How long a request may wait on Redis before the in-process fallback answers instead (ms).
    REDIS_COMMAND_TIMEOUT: z.coerce.number().int().min(50).max(60_000).default(500),
    REDIS_KEY_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - only')
      .default('comando'),
    // How long Redis keeps sent events for sockets that reconnect (they hold people's words): more than the two-minute recovery window.
    REALTIME_STREAM_MAX_AGE: duration.default(3 * 60),
    JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    // Keys the hashes erased people's identifiers are kept as; defaults to JWT_SECRET (docs/privacy.md).
    ERASURE_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    JWT_TTL: duration.default(12 * 3600),
    PUBLIC_BASE_URL: z.string().url().optional(),
    CORS_ORIGINS: z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((origin) => origin.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().url('each origin must be a URL such as https://app.example.org'))),
    TIMEZONE: timeZone.default('America/Bogota'),
    // Public holidays for business-day deadlines (PQRS): a date-holidays country code, optionally with a region ('US-CA').
    HOLIDAY_COUNTRY: z
      .string()
      .regex(/^[A-Z]{2}(-[A-Z0-9]{1,3})?$/, 'expected a country code such as CO, optionally with a region (US-CA)')
      .refine(knownHolidayCountry, 'date-holidays has no calendar for this country')
      .default('CO'),
    PQRS_MAX_PER_IP: positiveInt.default(30),
    PQRS_MAX_PER_PERSON: positiveInt.default(10),
    PQRS_WINDOW: duration.default(60 * 60),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    DATA_DIR: z.string().min(1).default('./data'),
    // Where uploaded files live: under DATA_DIR (one host), or in an S3-compatible bucket every process shares.
    // Bearer token that GET /metrics asks for; unset, /metrics is a 404.
    METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    FILE_STORE: z.enum(['local', 's3']).default('local'),
    S3_BUCKET: z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'expected a bucket name: 3-63 lower-case letters, digits, . and -')
      .optional(),
    // Absent: AWS's own endpoint for S3_REGION; MinIO, R2 and GCS's XML API give theirs.
    S3_ENDPOINT: z
      .string()
      .url()
      .refine((value) => /^https?:\/\//.test(value), 'expected an http:// or https:// URL')
      .optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    // Absent (both): the SDK's own credential chain (instance role, web identity, ~/.aws).
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    // MinIO and most self-hosted servers address buckets by path, not by host name.
    S3_FORCE_PATH_STYLE: booleanFlag.default(false),
    // Lets several deployments (or a staging copy) share one bucket.
    S3_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/, 'letters, digits, _ and - separated by /')
      .optional(),
    EMBEDDED_PG_PORT: z.coerce.number().int().min(1024).max(65535).default(54329),
    TRUST_PROXY: booleanFlag.default(false),
    BODY_LIMIT: z
      .string()
      .regex(/^\d+(kb|mb)$/i, 'expected a size such as 512kb or 1mb')
      .default('1mb'),
    // Failed logins per window: for one account from one address first; then for the account from
    // all addresses, and from one address over all accounts, neither of which holds back an address
    // the account signed in from lately (so nobody can lock staff out of their own office).
    LOGIN_MAX_FAILURES_PER_EMAIL_IP: positiveInt.default(5),
    LOGIN_MAX_FAILURES_PER_EMAIL: positiveInt.default(50),
    LOGIN_MAX_FAILURES_PER_IP: positiveInt.default(50),
    LOGIN_FAILURE_WINDOW: duration.default(15 * 60),
    REGISTER_MAX_PER_IP: positiveInt.default(20),
    // Off: once the first account (the admin) exists, admins create the others. On: anyone may ask for a volunteer account, which an admin activates.
    SELF_REGISTRATION: booleanFlag.default(false),
    // Generous: carrier-grade NAT and a rally's Wi-Fi put many citizens behind one address.
    CAPTURE_MAX_PER_IP: positiveInt.default(1000),
    CAPTURE_MAX_PER_PERSON: positiveInt.default(10),
    CAPTURE_WINDOW: duration.default(10 * 60),
    // How long a brigade member holds a voter from the call list before others may take them.
    GOTV_CLAIM_TTL: duration.default(20 * 60),
    // How often the war room's screens may get a new projection: it moves slowly, every screen parses each one.
    GOTV_PROJECTION_PUSH: duration.default(5),
    // A batch of turnout reports waits at most this long for a row another transaction holds (ms);
    // then the reports that need it are answered 503 and the rest recorded.
    GOTV_REPORT_LOCK_TIMEOUT: z.coerce.number().int().min(50).max(60_000).default(1000),
    // Any one of its statements runs at most this long (ms).
    GOTV_REPORT_STATEMENT_TIMEOUT: z.coerce.number().int().min(100).max(120_000).default(5000),
    // A turnout request is answered within this (ms), 503 for what is not recorded by then: below
    // the brigade app's 15 s, after which it gives up on the answer and sends the batch again.
    GOTV_REPORT_DEADLINE: z.coerce.number().int().min(200).max(120_000).default(10_000),
    REGISTER_WINDOW: duration.default(3600),
    // A set-password link an admin hands over: short, since it stands in for the password until used.
    PASSWORD_RESET_TTL: duration.default(30 * 60),
    SHUTDOWN_TIMEOUT: duration.default(15),
    // Above the idle timeout of the proxy in front (AWS ALB 60 s, nginx's upstream keepalive_timeout
    // 60 s), so the proxy, not Comando, closes an idle connection and never reuses one being closed.
    HTTP_KEEP_ALIVE_TIMEOUT: duration.default(65),
    // WhatsApp (Cloud API). Without an access token the simulator provider stands in.
    WHATSAPP_PROVIDER: z.enum(['cloud', 'simulator']).optional(),
    WHATSAPP_API_BASE_URL: z.string().url().default('https://graph.facebook.com'),
    WHATSAPP_API_VERSION: z
      .string()
      .regex(/^v\d+\.\d+$/, 'expected a Graph API version such as v23.0')
      .default('v23.0'),
    WHATSAPP_ACCESS_TOKEN: z.string().min(10).optional(),
    WHATSAPP_PHONE_NUMBER_ID: z
      .string()
      .regex(/^\d{5,20}$/, 'expected the numeric phone-number id')
      .optional(),
    WHATSAPP_WABA_ID: z
      .string()
      .regex(/^\d{5,20}$/, 'expected the numeric WhatsApp Business Account id')
      .optional(),
    WHATSAPP_APP_SECRET: z.string().min(16).optional(),
    WHATSAPP_VERIFY_TOKEN: z.string().min(8).optional(),
    WHATSAPP_RATE_PER_SECOND: positiveInt.max(1000).default(80),
    WHATSAPP_MESSAGING_TIER: z.enum(['250', '2000', '10000', '100000', 'unlimited']).default('10000'),
    WHATSAPP_SEND_CONCURRENCY: positiveInt.max(200).default(20),
    WHATSAPP_SEND_TIMEOUT: duration.default(15),
    WHATSAPP_PAIR_INTERVAL: duration.default(6),
    WHATSAPP_MAX_ATTEMPTS: positiveInt.max(20).default(8),
    WHATSAPP_IN_DOUBT_EXPIRY: duration.default(72 * 3600),
    // Consecutive provider errors that pause a campaign (0: never), so a broken account does not burn a list.
    WHATSAPP_PAUSE_AFTER_ERRORS: z.coerce.number().int().min(0).max(10_000).default(20),
    // Email marketing
    SMTP_URL: z
      .string()
      .url()
      .refine((value) => /^smtps?:\/\//.test(value), 'expected an smtp:// or smtps:// URL')
      .optional(),
    SMTP_MAX_CONNECTIONS: positiveInt.default(5),
    EMAIL_RATE_PER_SECOND: positiveInt.default(100),
    EMAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
    EMAIL_RETRY_BASE: duration.default(60),
    EMAIL_CLAIM_TIMEOUT: duration.default(10 * 60),
    EMAIL_PAUSE_AFTER_ERRORS: z.coerce.number().int().min(0).max(10_000).default(20),
    EMAIL_MACHINE_OPEN_SECONDS: z.coerce.number().int().min(0).max(600).default(10),
    EMAIL_TRACKING_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    EMAIL_UNSUBSCRIBE_MAILTO: z.string().email().optional(),
    // The sender of notices to one person (reminders, PQRS answers); campaigns name their own.
    EMAIL_FROM: z.string().email().optional(),
    EMAIL_FROM_NAME: z.string().trim().min(1).max(120).default('Comando'),
    EMAIL_DKIM_DOMAIN: z.string().min(1).optional(),
    EMAIL_DKIM_SELECTOR: z.string().min(1).optional(),
    EMAIL_DKIM_PRIVATE_KEY: z.string().min(1).optional(),
    // Social monitoring: a platform without its credentials is shown as not configured, never faked.
    SOCIAL_YOUTUBE_API_KEY: z.string().min(10).optional(),
    SOCIAL_YOUTUBE_BASE_URL: z.string().url().default('https://www.googleapis.com/youtube/v3'),
    SOCIAL_YOUTUBE_DAILY_UNITS: positiveInt.default(10_000),
    SOCIAL_X_BEARER_TOKEN: z.string().min(10).optional(),
    SOCIAL_X_BASE_URL: z.string().url().default('https://api.x.com/2'),
    SOCIAL_X_MONTHLY_READS: positiveInt.default(3_000_000),
    SOCIAL_GRAPH_BASE_URL: z.string().url().default('https://graph.facebook.com'),
    SOCIAL_GRAPH_API_VERSION: z
      .string()
      .regex(/^v\d+\.\d+$/, 'expected a Graph API version such as v23.0')
      .default('v23.0'),
    SOCIAL_FACEBOOK_ACCESS_TOKEN: z.string().min(10).optional(),
    SOCIAL_INSTAGRAM_ACCESS_TOKEN: z.string().min(10).optional(),
    SOCIAL_INSTAGRAM_BUSINESS_ID: z
      .string()
      .regex(/^\d{5,25}$/, "expected the numeric id of the campaign's own Instagram professional account")
      .optional(),
    SOCIAL_FETCH_TIMEOUT: duration.default(20),
    // How often each worker process looks for profiles due a fetch.
    SOCIAL_SWEEP_INTERVAL: duration.default(15),
    // How far back each fetch re-reads posts: engagement keeps growing for days after publication.
    SOCIAL_REFRESH_WINDOW: duration.default(7 * 86400),
    // Volunteers: an active volunteer logged at least one activity in this many days (the list, the pyramid, the dashboard).
    VOLUNTEER_ACTIVE_DAYS: positiveInt.max(366).default(14),
    // How often one process copies brigade work recorded by GOTV into volunteers' activities.
    VOLUNTEER_SYNC_INTERVAL: duration.default(30),
    // The war room's map: a tile server of the campaign's own ({z}/{x}/{y}); without it, outlines on a plain background.
    MAP_TILE_URL: z
      .string()
      .url()
      .refine((value) => /^https?:\/\/[^/]+\/.*\{z\}.*\{x\}.*\{y\}/.test(value), 'expected an http(s) URL template with {z}, {x} and {y}')
      .optional(),
    MAP_TILE_ATTRIBUTION: z.string().max(300).default(''),
  })
  .superRefine((env, ctx) => {
    const dkim = [env.EMAIL_DKIM_DOMAIN, env.EMAIL_DKIM_SELECTOR, env.EMAIL_DKIM_PRIVATE_KEY];
    if (dkim.some(Boolean) && !dkim.every(Boolean)) {
      ctx.addIssue({ code: 'custom', path: ['EMAIL_DKIM_PRIVATE_KEY'], message: 'DKIM needs EMAIL_DKIM_DOMAIN, EMAIL_DKIM_SELECTOR and EMAIL_DKIM_PRIVATE_KEY together' });
    }
    if (env.SOCIAL_INSTAGRAM_ACCESS_TOKEN && !env.SOCIAL_INSTAGRAM_BUSINESS_ID) {
      ctx.addIssue({
        code: 'custom',
        path: ['SOCIAL_INSTAGRAM_BUSINESS_ID'],
        message: 'is required with SOCIAL_INSTAGRAM_ACCESS_TOKEN (Business Discovery reads through your own account)',
      });
    }
    if (env.GOTV_REPORT_LOCK_TIMEOUT >= env.GOTV_REPORT_STATEMENT_TIMEOUT) {
      ctx.addIssue({ code: 'custom', path: ['GOTV_REPORT_LOCK_TIMEOUT'], message: 'must be below GOTV_REPORT_STATEMENT_TIMEOUT (a statement includes its waits)' });
    }
    if (env.GOTV_REPORT_LOCK_TIMEOUT >= env.GOTV_REPORT_DEADLINE) {
      ctx.addIssue({ code: 'custom', path: ['GOTV_REPORT_LOCK_TIMEOUT'], message: 'must be below GOTV_REPORT_DEADLINE' });
    }
    if (env.FILE_STORE === 's3' && !env.S3_BUCKET) {
      ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when FILE_STORE=s3' });
    }
    if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
      ctx.addIssue({ code: 'custom', path: ['S3_SECRET_ACCESS_KEY'], message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (or neither, for the SDK credential chain)' });
    }
    if (env.DATABASE_URL && !env.JWT_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['JWT_SECRET'],
        message: 'is required when DATABASE_URL is set (the production configuration); every process must share it',
      });
    }
    if ((env.WHATSAPP_PROVIDER ?? (env.WHATSAPP_ACCESS_TOKEN ? 'cloud' : 'simulator')) === 'cloud') {
      for (const key of ['WHATSAPP_ACCESS_TOKEN', 'WHATSAPP_PHONE_NUMBER_ID', 'WHATSAPP_WABA_ID', 'WHATSAPP_APP_SECRET', 'WHATSAPP_VERIFY_TOKEN'] as const) {
        if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'is required for the WhatsApp Cloud API provider' });
      }
    }
  });

export type Env = z.infer<typeof envSchema>;

export interface Config {
  env: Env['NODE_ENV'];
  port: number;
  host: string;
  /** Absent → the embedded PostgreSQL under dataDir. */
  databaseUrl: string | undefined;
  databasePoolMax: number;
  /** Absent → in-memory Socket.IO adapter, in-process jobs, in-memory rate limits. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** Milliseconds a Redis command may take before it fails (and the caller falls back). */
  redisCommandTimeoutMs: number;
  /** Seconds Redis keeps sent socket events, for sockets that reconnect. */
  realtimeStreamMaxAgeSeconds: number;
  /** Absent only in the embedded default, which generates one under dataDir. */
  jwtSecret: string | undefined;
  /** Key material for erased people's identifier hashes; absent → the signing secret. */
  erasureSecret: string | undefined;
  jwtTtlSeconds: number;
  publicBaseUrl: string;
  corsOrigins: string[];
  /** The war room's base map, when the campaign has a tile server. */
  mapTiles: { url: string; attribution: string } | undefined;
  timeZone: string;
  /** The country (date-holidays code) whose public holidays are not business days. */
  holidayCountry: string;
  logLevel: Env['LOG_LEVEL'];
  dataDir: string;
  /** What `GET /metrics` asks for as a bearer token; absent → no metrics endpoint (404). */
  metricsToken: string | undefined;
  /** Where uploaded files and the email outbox live (kernel/file-store.ts). */
  files: FileStoreConfig;
  embeddedPgPort: number;
  trustProxy: boolean;
  bodyLimit: string;
  loginLimits: { perEmailIp: number; perEmail: number; perIp: number; windowSeconds: number };
  registerLimits: { perIp: number; windowSeconds: number };
  /** Whether people without an account may ask for one after the first (inactive until an admin activates it). */
  selfRegistration: boolean;
  passwordResetSeconds: number;
  captureLimits: { perIp: number; perPerson: number; windowSeconds: number };
  /** Public PQRS filings per IP and per phone/email, per window. */
  pqrsLimits: { perIp: number; perPerson: number; windowSeconds: number };
  gotvClaimSeconds: number;
  /** The least time between two `gotv:projection` pushes, across all processes. */
  gotvProjectionPushSeconds: number;
  /** How long a turnout request may wait: on a row lock, on one statement, in all (ms). */
  gotvReports: { lockTimeoutMs: number; statementTimeoutMs: number; deadlineMs: number };
  shutdownTimeoutSeconds: number;
  /** The HTTP server's idle keep-alive timeout, and its headers timeout just above it (ms). */
  http: { keepAliveTimeoutMs: number; headersTimeoutMs: number };
  /** Milliseconds a statement may wait for a pooled connection. */
  databaseAcquireTimeoutMs: number;
  whatsapp: WhatsAppConfig;
  email: EmailConfig;
  social: SocialConfig;
  volunteers: { activeDays: number; syncIntervalSeconds: number };
}

export type FileStoreConfig =
  | { kind: 'local'; dir: string }
  | {
      kind: 's3';
      bucket: string;
      endpoint: string | undefined;
      region: string;
      credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
      forcePathStyle: boolean;
      /** Prepended to every key, without a trailing slash; empty for none. */
      prefix: string;
    };

// WhatsApp
export interface WhatsAppConfig {
  provider: 'cloud' | 'simulator';
  baseUrl: string;
  apiVersion: string;
  accessToken: string | undefined;
  phoneNumberId: string | undefined;
  wabaId: string | undefined;
  appSecret: string | undefined;
  verifyToken: string | undefined;
  ratePerSecond: number;
  /** Unique contacts reachable with business-initiated messages per rolling 24 h; null = unlimited. */
  messagingTier: number | null;
  /** Messages in flight at once per process: also the most that can be in doubt after a crash. */
  sendConcurrency: number;
  sendTimeoutSeconds: number;
  pairIntervalSeconds: number;
  maxAttempts: number;
  inDoubtExpirySeconds: number;
  /** Consecutive provider errors that pause a campaign; 0 never pauses. */
  pauseAfterErrors: number;
}

// Email marketing
export interface EmailConfig {
  /** Absent → each message is written as an .eml file in the file store's `outbox` area. */
  smtpUrl: string | undefined;
  /** Pooled SMTP connections per process: also the most messages in flight, so the most in doubt after a crash. */
  maxConnections: number;
  ratePerSecond: number;
  maxAttempts: number;
  retryBaseSeconds: number;
  /** A recipient claimed longer ago than this, still `sending`, was left by a process that died: it is in doubt. */
  claimTimeoutSeconds: number;
  /** Consecutive provider errors that pause a campaign; 0 never pauses. */
  pauseAfterErrors: number;
  machineOpenSeconds: number;
  trackingSecret: string | undefined;
  unsubscribeMailto: string | undefined;
  /** Who notices to one person come from (EMAIL_FROM, else notificaciones@ the public host). */
  from: { name: string; email: string };
  dkim: { domainName: string; keySelector: string; privateKey: string } | undefined;
}

// Social monitoring
export interface SocialConfig {
  youtube: { baseUrl: string; apiKey: string | undefined; dailyUnits: number };
  x: { baseUrl: string; bearerToken: string | undefined; monthlyReads: number };
  /** Facebook Pages and Instagram Business Discovery share the Graph API. */
  graph: { baseUrl: string; apiVersion: string; facebookToken: string | undefined; instagramToken: string | undefined; instagramBusinessId: string | undefined };
  fetchTimeoutSeconds: number;
  refreshWindowSeconds: number;
  sweepIntervalSeconds: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((line) => `  - ${line}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Empty strings in the environment mean "not set": `FOO=` in a .env file should not be a value. */
function withoutEmpty(source: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(withoutEmpty(source));
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`));
  }
  const env = parsed.data;
  return {
    env: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    databasePoolMax: env.DATABASE_POOL_MAX,
    redisUrl: env.REDIS_URL,
    redisKeyPrefix: env.REDIS_KEY_PREFIX,
    redisCommandTimeoutMs: env.REDIS_COMMAND_TIMEOUT,
    realtimeStreamMaxAgeSeconds: env.REALTIME_STREAM_MAX_AGE,
    jwtSecret: env.JWT_SECRET,
    erasureSecret: env.ERASURE_SECRET,
    jwtTtlSeconds: env.JWT_TTL,
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    corsOrigins: env.CORS_ORIGINS,
    mapTiles: env.MAP_TILE_URL ? { url: env.MAP_TILE_URL, attribution: env.MAP_TILE_ATTRIBUTION } : undefined,
    timeZone: env.TIMEZONE,
    holidayCountry: env.HOLIDAY_COUNTRY,
    logLevel: env.LOG_LEVEL,
    dataDir: path.resolve(env.DATA_DIR),
    metricsToken: env.METRICS_TOKEN,
    files:
      env.FILE_STORE === 's3'
        ? {
            kind: 's3',
            bucket: env.S3_BUCKET!,
            endpoint: env.S3_ENDPOINT,
            region: env.S3_REGION,
            credentials: env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY } : undefined,
            forcePathStyle: env.S3_FORCE_PATH_STYLE,
            prefix: env.S3_PREFIX ?? '',
          }
        : { kind: 'local', dir: path.resolve(env.DATA_DIR) },
    embeddedPgPort: env.EMBEDDED_PG_PORT,
    trustProxy: env.TRUST_PROXY,
    bodyLimit: env.BODY_LIMIT.toLowerCase(),
    loginLimits: {
      perEmailIp: env.LOGIN_MAX_FAILURES_PER_EMAIL_IP,
      perEmail: env.LOGIN_MAX_FAILURES_PER_EMAIL,
      perIp: env.LOGIN_MAX_FAILURES_PER_IP,
      windowSeconds: env.LOGIN_FAILURE_WINDOW,
    },
    registerLimits: { perIp: env.REGISTER_MAX_PER_IP, windowSeconds: env.REGISTER_WINDOW },
    selfRegistration: env.SELF_REGISTRATION,
    passwordResetSeconds: env.PASSWORD_RESET_TTL,
    captureLimits: { perIp: env.CAPTURE_MAX_PER_IP, perPerson: env.CAPTURE_MAX_PER_PERSON, windowSeconds: env.CAPTURE_WINDOW },
    pqrsLimits: { perIp: env.PQRS_MAX_PER_IP, perPerson: env.PQRS_MAX_PER_PERSON, windowSeconds: env.PQRS_WINDOW },
    gotvClaimSeconds: env.GOTV_CLAIM_TTL,
    gotvProjectionPushSeconds: env.GOTV_PROJECTION_PUSH,
    gotvReports: { lockTimeoutMs: env.GOTV_REPORT_LOCK_TIMEOUT, statementTimeoutMs: env.GOTV_REPORT_STATEMENT_TIMEOUT, deadlineMs: env.GOTV_REPORT_DEADLINE },
    shutdownTimeoutSeconds: env.SHUTDOWN_TIMEOUT,
    http: { keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT * 1000, headersTimeoutMs: (env.HTTP_KEEP_ALIVE_TIMEOUT + 1) * 1000 },
    databaseAcquireTimeoutMs: env.DATABASE_ACQUIRE_TIMEOUT,
    whatsapp: {
      provider: env.WHATSAPP_PROVIDER ?? (env.WHATSAPP_ACCESS_TOKEN ? 'cloud' : 'simulator'),
      baseUrl: env.WHATSAPP_API_BASE_URL.replace(/\/+$/, ''),
      apiVersion: env.WHATSAPP_API_VERSION,
      accessToken: env.WHATSAPP_ACCESS_TOKEN,
      phoneNumberId: env.WHATSAPP_PHONE_NUMBER_ID,
      wabaId: env.WHATSAPP_WABA_ID,
      appSecret: env.WHATSAPP_APP_SECRET,
      verifyToken: env.WHATSAPP_VERIFY_TOKEN,
      ratePerSecond: env.WHATSAPP_RATE_PER_SECOND,
      messagingTier: env.WHATSAPP_MESSAGING_TIER === 'unlimited' ? null : Number(env.WHATSAPP_MESSAGING_TIER),
      sendConcurrency: env.WHATSAPP_SEND_CONCURRENCY,
      sendTimeoutSeconds: env.WHATSAPP_SEND_TIMEOUT,
      pairIntervalSeconds: env.WHATSAPP_PAIR_INTERVAL,
      maxAttempts: env.WHATSAPP_MAX_ATTEMPTS,
      inDoubtExpirySeconds: env.WHATSAPP_IN_DOUBT_EXPIRY,
      pauseAfterErrors: env.WHATSAPP_PAUSE_AFTER_ERRORS,
    },
    email: {
      smtpUrl: env.SMTP_URL,
      maxConnections: env.SMTP_MAX_CONNECTIONS,
      ratePerSecond: env.EMAIL_RATE_PER_SECOND,
      maxAttempts: env.EMAIL_MAX_ATTEMPTS,
      retryBaseSeconds: env.EMAIL_RETRY_BASE,
      claimTimeoutSeconds: env.EMAIL_CLAIM_TIMEOUT,
      pauseAfterErrors: env.EMAIL_PAUSE_AFTER_ERRORS,
      machineOpenSeconds: env.EMAIL_MACHINE_OPEN_SECONDS,
      trackingSecret: env.EMAIL_TRACKING_SECRET,
      unsubscribeMailto: env.EMAIL_UNSUBSCRIBE_MAILTO,
      from: { name: env.EMAIL_FROM_NAME, email: env.EMAIL_FROM ?? `notificaciones@${new URL(env.PUBLIC_BASE_URL ?? 'http://localhost').hostname}` },
      dkim:
        env.EMAIL_DKIM_DOMAIN && env.EMAIL_DKIM_SELECTOR && env.EMAIL_DKIM_PRIVATE_KEY
          ? { domainName: env.EMAIL_DKIM_DOMAIN, keySelector: env.EMAIL_DKIM_SELECTOR, privateKey: env.EMAIL_DKIM_PRIVATE_KEY.replace(/\\n/g, '\n') }
          : undefined,
    },
    social: {
      youtube: { baseUrl: env.SOCIAL_YOUTUBE_BASE_URL.replace(/\/+$/, ''), apiKey: env.SOCIAL_YOUTUBE_API_KEY, dailyUnits: env.SOCIAL_YOUTUBE_DAILY_UNITS },
      x: { baseUrl: env.SOCIAL_X_BASE_URL.replace(/\/+$/, ''), bearerToken: env.SOCIAL_X_BEARER_TOKEN, monthlyReads: env.SOCIAL_X_MONTHLY_READS },
      graph: {
        baseUrl: env.SOCIAL_GRAPH_BASE_URL.replace(/\/+$/, ''),
        apiVersion: env.SOCIAL_GRAPH_API_VERSION,
        facebookToken: env.SOCIAL_FACEBOOK_ACCESS_TOKEN,
        instagramToken: env.SOCIAL_INSTAGRAM_ACCESS_TOKEN,
        instagramBusinessId: env.SOCIAL_INSTAGRAM_BUSINESS_ID,
      },
      fetchTimeoutSeconds: env.SOCIAL_FETCH_TIMEOUT,
      refreshWindowSeconds: env.SOCIAL_REFRESH_WINDOW,
      sweepIntervalSeconds: env.SOCIAL_SWEEP_INTERVAL,
    },
    volunteers: { activeDays: env.VOLUNTEER_ACTIVE_DAYS, syncIntervalSeconds: env.VOLUNTEER_SYNC_INTERVAL },
  };
}
