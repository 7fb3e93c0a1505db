/**
 * Baseline: bare Koa + @koa/router + koa-body doing one `pg` insert per POST into a table shaped
 * like territories, answering 201 with the row. Comando's territory create adds auth, zod
 * validation, the ORM and a realtime publish on top of exactly this.
 */
import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import { Pool } from 'pg';
import { uuidv7 } from 'uuidv7';
import { exitOnFailure, serveBaseline } from './baseline-serve';

const TYPES = new Set(['department', 'municipality', 'commune', 'neighbourhood', 'zone']);

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is required');
  // max 10 = Comando's DATABASE_POOL_MAX default, so both sides get the same connections.
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  // Same column types and key as territories, same (type, name) index; ids are UUID v7 as in
  // Comando, so index inserts land in the same (right-hand) pages.
  await pool.query('drop table if exists bench_territories');
  await pool.query(`create table bench_territories (
    id uuid primary key,
    name varchar(160) not null,
    type text not null check (type in ('department', 'municipality', 'commune', 'neighbourhood', 'zone')),
    created_at timestamptz not null,
    updated_at timestamptz not null)`);
  await pool.query('create index bench_territories_type_name_index on bench_territories (type, name)');

  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.post('/api/territories', async (ctx) => {
    const body = ctx.request.body as { name?: unknown; type?: unknown } | undefined;
    // The least validation that is still honest: reject what the table would reject.
    if (typeof body?.name !== 'string' || !body.name || typeof body.type !== 'string' || !TYPES.has(body.type)) {
      ctx.status = 400;
      ctx.body = { title: 'invalid body' };
      return;
    }
    const now = new Date();
    const { rows } = await pool.query('insert into bench_territories (id, name, type, created_at, updated_at) values ($1, $2, $3, $4, $4) returning *', [
      uuidv7(),
      body.name,
      body.type,
      now,
    ]);
    ctx.status = 201;
    ctx.body = rows[0];
  });

  const app = new Koa();
  app.use(koaBody({ jsonLimit: '1mb' }));
  app.use(router.routes());
  serveBaseline(app, pool, 3102);
}

exitOnFailure(main);
