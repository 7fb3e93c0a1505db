/**
 * Baseline of the lead-capture benchmark: bare Koa + @koa/router + koa-body doing one plain `pg`
 * INSERT of a lead-shaped row (name, phone, email, text[] interests) per POST, answering 201 with
 * the id. Comando's capture adds validation, phone normalisation, the campaign's rules, rate
 * limits, dedupe (contact and lead upserts), the consent record and a realtime publish on top.
 */
import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import { Pool } from 'pg';
import { uuidv7 } from 'uuidv7';
import { exitOnFailure, serveBaseline } from './baseline-serve';

interface LeadBody {
  name?: unknown;
  phone?: unknown;
  email?: unknown;
  interests?: unknown;
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is required');
  // max 10 = Comando's DATABASE_POOL_MAX default, so both sides get the same connections.
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  // UUID v7 keys as in Comando, so index inserts land in the same (right-hand) pages.
  await pool.query('drop table if exists bench_leads');
  await pool.query(`create table bench_leads (
    id uuid primary key,
    name varchar(150) not null,
    phone text,
    email text,
    interests text[] not null,
    created_at timestamptz not null)`);

  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.post('/api/leads', async (ctx) => {
    const body = ctx.request.body as LeadBody | undefined;
    const interests = body?.interests;
    // The least validation that is still honest: reject what the table would reject.
    if (
      !isText(body?.name) ||
      (body.phone !== undefined && typeof body.phone !== 'string') ||
      (body.email !== undefined && typeof body.email !== 'string') ||
      !Array.isArray(interests) ||
      !interests.every(isText)
    ) {
      ctx.status = 400;
      ctx.body = { title: 'invalid body' };
      return;
    }
    const { rows } = await pool.query<{ id: string }>('insert into bench_leads (id, name, phone, email, interests, created_at) values ($1, $2, $3, $4, $5, $6) returning id', [
      uuidv7(),
      body.name,
      body.phone ?? null,
      body.email ?? null,
      interests,
      new Date(),
    ]);
    ctx.status = 201;
    ctx.body = { id: rows[0]?.id, status: 'captured' };
  });

  const app = new Koa();
  app.use(koaBody({ jsonLimit: '1mb' }));
  app.use(router.routes());
  serveBaseline(app, pool, 3103);
}

exitOnFailure(main);
