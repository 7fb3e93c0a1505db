import type { KeyObject } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Authenticator } from './auth/authenticate';
import type { Caches } from './cache';
import type { FileStore } from './file-store';
import type { Actor } from './auth/roles';
import type { Jobs } from './jobs';
import type { Metrics } from './metrics';
import type { PersonalDataSection, PersonTimelineSection, TerritoryReferenceSection } from './module';
import type { ProcessLocal } from './process-local';
import type { RateLimits } from './rate-limit';
import type { Realtime } from './realtime';
import type { Database } from './sql';

/** Everything a module may use; built once per process by main.ts (or a test) and shared. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  orm: MikroORM;
  /** Statements written with `sql` or built with `tables<…>()`, on the ORM's pool. */
  db: Database;
  /** Present in the production configuration only. */
  redis: Redis | undefined;
  /** Named read-through caches, invalidated across processes. */
  caches: Caches;
  /**
   * Keys derived from the signing secret for other purposes (never the secret itself), prepared
   * as key objects: Node 24 re-imports a Buffer key on every HMAC or cipher, several times slower.
   */
  secrets: {
    ipHashKey: KeyObject;
    /** Erased people's identifiers are kept as their HMAC under it (`hashIdentifier`); from `ERASURE_SECRET`, else the signing secret. */
    erasureKey: KeyObject;
  };
  auth: Authenticator;
  realtime: Realtime;
  jobs: Jobs;
  /** Uploaded files and the email outbox: under DATA_DIR, or a bucket every process shares. */
  files: FileStore;
  /** Prometheus metrics of this process (`GET /metrics`). */
  metrics: Metrics;
  rateLimits: RateLimits;
  /** Every module's part of what the process holds about a person (the manifests' `personalData`). */
  personalData: readonly PersonalDataSection[];
  /** Every module's part of a person's page (the manifests' `personTimeline`). */
  personTimeline: readonly PersonTimelineSection[];
  /** Every module's count of its rows pointing at a territory (the manifests' `territoryReferences`). */
  territoryReferences: readonly TerritoryReferenceSection[];
  /** Modules' per-process state (`processLocal`), closed at shutdown. */
  local: ProcessLocal;
}

declare module 'koa' {
  interface DefaultContext {
    deps: AppDeps;
  }
  interface DefaultState {
    requestId: string;
    actor?: Actor;
  }
}
