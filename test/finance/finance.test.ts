import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { Workbook } from 'exceljs';
import type { Response } from 'supertest';
import { sql } from '../../src/kernel/sql';
import { todayIn } from '../../src/kernel/calendar';
import { startTestApp, type TestApp } from '../helpers/app';
import { FILE_STORES, fileStoreEnv, storedBytes, storedNames } from '../helpers/file-stores';
import { createUser, expectProblem, registerAdmin, type TestUser } from '../helpers/users';

const base = '/api/finance';
const today = () => todayIn('America/Bogota');
/** The local day `days` after today (before it when negative). */
const shift = (days: number) => new Date(Date.parse(`${today()}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

interface Staff {
  app: TestApp;
  admin: TestUser;
  manager: TestUser;
  treasurer: TestUser;
  viewer: TestUser;
  volunteer: TestUser;
  dataDir: string;
}

/** A process of its own (its own database and DATA_DIR), with one user of each role that matters here. */
async function startFinance(overrides: Record<string, string> = {}): Promise<Staff> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'comando-finance-'));
  const app = await startTestApp({ DATA_DIR: dataDir, ...overrides }, { workers: false });
  const admin = await registerAdmin(app);
  const [manager, treasurer, viewer, volunteer] = await Promise.all([
    createUser(app, admin, 'manager'),
    createUser(app, admin, 'treasurer'),
    createUser(app, admin, 'viewer'),
    createUser(app, admin, 'volunteer'),
  ]);
  return { app, admin, manager, treasurer, viewer, volunteer, dataDir };
}

async function stop(staff: Staff | undefined): Promise<void> {
  if (!staff) return;
  await staff.app.close();
  fs.rmSync(staff.dataDir, { recursive: true, force: true });
}

function expense(overrides: Record<string, unknown> = {}) {
  return {
    kind: 'expense',
    date: today(),
    amount: 100_000,
    code: 'G-203',
    counterparty: { name: 'Vallas del Valle S.A.S.', idNumber: '900.555.111-2' },
    description: 'Valla avenida 68',
    ...overrides,
  };
}

function donation(overrides: Record<string, unknown> = {}) {
  return { kind: 'income', date: today(), amount: 100_000, code: 'I-103', donorType: 'person', counterparty: { name: 'Ana Pérez', idNumber: '1.020.304.050' }, ...overrides };
}

/** Reads a binary answer (PDF, xlsx) into a Buffer: superagent hands the parser the response stream. */
function binary(response: Response, done: (error: Error | null, body: Buffer) => void) {
  const stream = response as unknown as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}

/** exceljs types its input as an ArrayBuffer-like of its own: hand it the bytes' own slice. */
const arrayBufferOf = (bytes: Buffer): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0 receipt bytes')]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('IHDR png receipt')]);
const PDF = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n');

const paths = (problem: Record<string, unknown>) => ((problem.errors as { path: string }[] | undefined) ?? []).map((error) => error.path);

describe('roles', () => {
  let s: Staff;
  beforeAll(async () => {
    s = await startFinance();
  });
  afterAll(() => stop(s));

  it('lets treasurers and managers keep the books, viewers read only the summary, and refuses everyone else', async () => {
    const { app, manager, treasurer, viewer, volunteer, admin } = s;
    const mine = await app.http.post(`${base}/entries`).set(treasurer.auth).send(expense()).expect(201);
    expect(mine.body.recordedById).toBe(treasurer.id);
    await app.http.post(`${base}/entries`).set(manager.auth).send(expense()).expect(201);
    await app.http.post(`${base}/entries`).set(admin.auth).send(expense()).expect(201);
    await app.http.get(`${base}/entries`).set(treasurer.auth).expect(200);

    const summary = await app.http.get(`${base}/summary`).set(viewer.auth).expect(200);
    expect(summary.body.expenses).toBe(300_000);
    const readOnly = [
      `${base}/entries`,
      `${base}/entries/${mine.body.id}`,
      `${base}/entries/${mine.body.id}/history`,
      `${base}/entries/${mine.body.id}/receipt`,
      `${base}/report?format=csv`,
      `${base}/codes`,
      `${base}/settings`,
    ];
    for (const url of readOnly) expectProblem(await app.http.get(url).set(viewer.auth), 403, 'forbidden');
    for (const url of [...readOnly, `${base}/summary`]) expectProblem(await app.http.get(url).set(volunteer.auth), 403, 'forbidden');
    expectProblem(await app.http.post(`${base}/entries`).set(viewer.auth).send(expense()), 403);
    expectProblem(await app.http.post(`${base}/entries`).set(volunteer.auth).send(expense()), 403);
    expectProblem(await app.http.post(`${base}/entries/${mine.body.id}/reverse`).set(viewer.auth).send({}), 403);
    expectProblem(await app.http.get(`${base}/summary`), 401);

    // The cap and the closed period are the manager's: a treasurer cannot waive what binds them.
    const settings = { spendingCap: 50_000_000, electionDate: shift(60) };
    expectProblem(await app.http.put(`${base}/settings`).set(treasurer.auth).send(settings), 403);
    await app.http.put(`${base}/settings`).set(manager.auth).send(settings).expect(200);
    await app.http.get(`${base}/settings`).set(treasurer.auth).expect(200);
  });

  it('stores the new role: a treasurer is listed, logs in and keeps the role', async () => {
    const { app, admin, treasurer } = s;
    const listed = await app.http.get('/api/users?role=treasurer').set(admin.auth).expect(200);
    expect(listed.body.data.map((user: { id: string }) => user.id)).toEqual([treasurer.id]);
    const login = await app.http.post('/api/auth/login').send({ email: treasurer.email, password: treasurer.password }).expect(200);
    expect(login.body.user.role).toBe('treasurer');
  });
});

describe('entries, catalogue and report', () => {
  let s: Staff;
  beforeAll(async () => {
    s = await startFinance();
  });
  afterAll(() => stop(s));

  const count = async () => (await s.app.runtime.deps.db.first<{ n: number }>(sql`select count(*)::int as n from finance_entries`))!.n;

  it('has the default catalogue after the Formulario 5B headings, with I-103 as the donation code', async () => {
    const codes = await s.app.http.get(`${base}/codes`).set(s.treasurer.auth).expect(200);
    const list = codes.body.data as { code: string; kind: string; donation: boolean; active: boolean }[];
    expect(list.filter((code) => code.kind === 'income').map((code) => code.code)).toEqual(['I-101', 'I-102', 'I-103', 'I-104', 'I-105', 'I-106']);
    expect(list.filter((code) => code.kind === 'expense').map((code) => code.code)).toEqual(['G-201', 'G-202', 'G-203', 'G-204', 'G-205', 'G-206', 'G-207', 'G-208', 'G-209']);
    expect(list.filter((code) => code.donation).map((code) => code.code)).toEqual(['I-103']);
    expect(list.every((code) => code.active)).toBe(true);
    const expenses = await s.app.http.get(`${base}/codes?kind=expense`).set(s.treasurer.auth).expect(200);
    expect(expenses.body.data).toHaveLength(9);
  });

  it('records an expense and a donation, normalising the NIT or cédula', async () => {
    const { app, treasurer } = s;
    const created = await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(expense({ amount: 2_500_000, notes: 'Factura FV-1020' }))
      .expect(201);
    expect(created.body).toMatchObject({
      kind: 'expense',
      amount: 2_500_000,
      code: 'G-203',
      codeName: 'Propaganda electoral y publicidad',
      counterparty: { name: 'Vallas del Valle S.A.S.', idNumber: '900555111' },
      notes: 'Factura FV-1020',
      donorType: null,
      reversesId: null,
      reversedById: null,
      override: null,
      receipt: null,
      periodClosed: false,
    });
    const gift = await app.http.post(`${base}/entries`).set(treasurer.auth).send(donation()).expect(201);
    expect(gift.body).toMatchObject({ kind: 'income', donorType: 'person', counterparty: { idNumber: '1020304050' } });
    const read = await app.http.get(`${base}/entries/${created.body.id}`).set(treasurer.auth).expect(200);
    expect(read.body).toEqual(created.body);
    // The bigint column holds the exact pesos.
    const stored = await app.runtime.deps.db.first<{ amount: string }>(sql`select amount from finance_entries where id = ${created.body.id}`);
    expect(stored!.amount).toBe('2500000');
    expectProblem(await app.http.get(`${base}/entries/01960000-0000-7000-8000-000000000000`).set(treasurer.auth), 404);
  });

  it('refuses bad entries with a problem naming the field, and writes nothing', async () => {
    const { app, treasurer } = s;
    const before = await count();
    const cases: [Record<string, unknown>, string, string][] = [
      [expense({ amount: 0 }), 'body.amount', 'validation_failed'],
      [expense({ amount: -5000 }), 'body.amount', 'validation_failed'],
      [expense({ amount: 1500.5 }), 'body.amount', 'validation_failed'],
      [expense({ amount: 10_000_000_000_001 }), 'body.amount', 'validation_failed'],
      [expense({ amount: '1000' }), 'body.amount', 'validation_failed'],
      [expense({ code: 'G-999' }), 'body.code', 'unknown_code'],
      [expense({ code: 'I-101' }), 'body.code', 'code_kind_mismatch'],
      [expense({ code: 'X1' }), 'body.code', 'validation_failed'],
      [expense({ date: shift(1) }), 'body.date', 'date_in_future'],
      [expense({ date: shift(400) }), 'body.date', 'date_in_future'],
      [expense({ date: '2026-02-30' }), 'body.date', 'validation_failed'],
      [expense({ donorType: 'person' }), 'body.donorType', 'validation_failed'],
      [expense({ counterparty: { name: '' } }), 'body.counterparty.name', 'validation_failed'],
      [expense({ counterparty: { name: 'X', idNumber: '12-34-56' } }), 'body.counterparty.idNumber', 'validation_failed'],
      [expense({ kind: 'gift' }), 'body.kind', 'validation_failed'],
      [expense({ colour: 'red' }), 'body', 'validation_failed'],
      [donation({ donorType: undefined }), 'body.donorType', 'validation_failed'],
      [donation({ counterparty: { name: 'Anónimo' } }), 'body.counterparty.idNumber', 'validation_failed'],
    ];
    for (const [body, path, code] of cases) {
      const problem = expectProblem(await app.http.post(`${base}/entries`).set(treasurer.auth).send(body), 400, code);
      expect(paths(problem)).toContain(path);
    }
    expect(await count()).toBe(before);
  });

  it('edits an entry of an open period, checking it as on creation, and keeps the history', async () => {
    const { app, treasurer } = s;
    const created = await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(expense({ amount: 300_000, date: shift(-3) }))
      .expect(201);
    const id = created.body.id as string;
    const patched = await app.http
      .patch(`${base}/entries/${id}`)
      .set(treasurer.auth)
      .send({ amount: 320_000, description: 'Valla avenida 68, con IVA', code: 'G-204' })
      .expect(200);
    expect(patched.body).toMatchObject({ amount: 320_000, description: 'Valla avenida 68, con IVA', code: 'G-204', codeName: 'Actos públicos', date: shift(-3) });
    // Sending what it already has changes nothing and records nothing.
    await app.http.patch(`${base}/entries/${id}`).set(treasurer.auth).send({ amount: 320_000 }).expect(200);

    expectProblem(await app.http.patch(`${base}/entries/${id}`).set(treasurer.auth).send({ code: 'I-101' }), 400, 'code_kind_mismatch');
    expectProblem(await app.http.patch(`${base}/entries/${id}`).set(treasurer.auth).send({ amount: 0 }), 400);
    expectProblem(
      await app.http
        .patch(`${base}/entries/${id}`)
        .set(treasurer.auth)
        .send({ date: shift(2) }),
      400,
      'date_in_future',
    );
    expectProblem(await app.http.patch(`${base}/entries/${id}`).set(treasurer.auth).send({ kind: 'income' }), 400);
    expectProblem(await app.http.patch(`${base}/entries/${id}`).set(treasurer.auth).send({}), 400);
    expectProblem(await app.http.patch(`${base}/entries/${id}`).set(treasurer.auth).send({ donorType: 'person' }), 400);
    expectProblem(await app.http.patch(`${base}/entries/01960000-0000-7000-8000-000000000000`).set(treasurer.auth).send({ amount: 5 }), 404);

    const history = await app.http.get(`${base}/entries/${id}/history`).set(treasurer.auth).expect(200);
    expect(history.body.data.map((row: { action: string }) => row.action)).toEqual(['create', 'update']);
    expect(history.body.data[0].changes.amount).toEqual({ before: null, after: 300_000 });
    expect(history.body.data[1]).toMatchObject({
      actorId: treasurer.id,
      changes: {
        amount: { before: 300_000, after: 320_000 },
        code: { before: 'G-203', after: 'G-204' },
        description: { before: 'Valla avenida 68', after: 'Valla avenida 68, con IVA' },
      },
    });
    expect(Object.keys(history.body.data[1].changes).sort()).toEqual(['amount', 'code', 'description']);
  });

  it('filters the list, pages it by cursor, and totals every matching entry', async () => {
    const { app, treasurer } = s;
    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(expense({ amount: 40_000, date: shift(-20), code: 'G-205', counterparty: { name: 'Transportes Ruta 5', idNumber: '800111222' }, description: 'Buses a la plaza' }))
      .expect(201);
    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(donation({ amount: 70_000, date: shift(-20), counterparty: { name: 'Luis Gómez', idNumber: '79111222' } }))
      .expect(201);

    const all = await app.http.get(`${base}/entries?limit=200`).set(treasurer.auth).expect(200);
    const rows = all.body.data as { kind: string; amount: number; date: string; id: string }[];
    const sum = (kind: string) => rows.filter((row) => row.kind === kind).reduce((total, row) => total + row.amount, 0);
    expect(all.body.totals).toEqual({ entries: rows.length, income: sum('income'), expenses: sum('expense'), balance: sum('income') - sum('expense') });
    expect(rows.map((row) => row.date)).toEqual([...rows.map((row) => row.date)].sort().reverse());

    // Pages of two add up to the same list and the same totals.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Response = await app.http
        .get(`${base}/entries`)
        .query({ limit: 2, ...(cursor ? { cursor } : {}) })
        .set(treasurer.auth)
        .expect(200);
      expect(page.body.totals).toEqual(all.body.totals);
      seen.push(...page.body.data.map((row: { id: string }) => row.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(rows.map((row) => row.id));

    const transport = await app.http.get(`${base}/entries?code=g-205`).set(treasurer.auth).expect(200);
    expect(transport.body.totals).toEqual({ entries: 1, income: 0, expenses: 40_000, balance: -40_000 });
    const old = await app.http
      .get(`${base}/entries?from=${shift(-25)}&to=${shift(-10)}`)
      .set(treasurer.auth)
      .expect(200);
    expect(old.body.totals).toMatchObject({ entries: 2, income: 70_000, expenses: 40_000 });
    const byDonor = await app.http.get(`${base}/entries?idNumber=79.111.222`).set(treasurer.auth).expect(200);
    expect(byDonor.body.data.map((row: { counterparty: { name: string } }) => row.counterparty.name)).toEqual(['Luis Gómez']);
    const search = await app.http.get(`${base}/entries?q=plaza&kind=expense`).set(treasurer.auth).expect(200);
    expect(search.body.totals.entries).toBe(1);
    const literal = await app.http.get(`${base}/entries?q=%25`).set(treasurer.auth).expect(200);
    expect(literal.body.totals.entries).toBe(0);

    expect(paths(expectProblem(await app.http.get(`${base}/entries?from=${shift(-1)}&to=${shift(-5)}`).set(treasurer.auth), 400))).toContain('query.to');
    expectProblem(await app.http.get(`${base}/entries?kind=gift`).set(treasurer.auth), 400);
    expectProblem(await app.http.get(`${base}/entries?cursor=garbage`).set(treasurer.auth), 400);
  });

  it('keeps a catalogue: add, rename, deactivate, delete only what is unused', async () => {
    const { app, treasurer, manager } = s;
    const added = await app.http.post(`${base}/codes`).set(treasurer.auth).send({ code: 'G-203.1', kind: 'expense', name: 'Publicidad en redes sociales' }).expect(201);
    expect(added.body).toEqual({ code: 'G-203.1', kind: 'expense', name: 'Publicidad en redes sociales', description: null, donation: false, active: true, entries: 0 });
    expectProblem(await app.http.post(`${base}/codes`).set(treasurer.auth).send({ code: 'G-203.1', kind: 'expense', name: 'Otra' }), 409, 'code_taken');
    expect(paths(expectProblem(await app.http.post(`${base}/codes`).set(treasurer.auth).send({ code: 'I-150', kind: 'expense', name: 'Mal' }), 400))).toContain('body.code');
    expect(paths(expectProblem(await app.http.post(`${base}/codes`).set(treasurer.auth).send({ code: 'G-150', kind: 'expense', name: 'Mal', donation: true }), 400))).toContain(
      'body.donation',
    );
    expectProblem(await app.http.post(`${base}/codes`).set(s.viewer.auth).send({ code: 'G-150', kind: 'expense', name: 'Mal' }), 403);

    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(expense({ code: 'G-203.1', amount: 10_000 }))
      .expect(201);
    const renamed = await app.http.patch(`${base}/codes/G-203.1`).set(manager.auth).send({ name: 'Pauta en redes', description: 'Meta, TikTok, X' }).expect(200);
    expect(renamed.body).toMatchObject({ name: 'Pauta en redes', description: 'Meta, TikTok, X', entries: 1 });
    expectProblem(await app.http.delete(`${base}/codes/G-203.1`).set(manager.auth), 409, 'code_in_use');
    await app.http.patch(`${base}/codes/G-203.1`).set(manager.auth).send({ active: false }).expect(200);
    expectProblem(
      await app.http
        .post(`${base}/entries`)
        .set(treasurer.auth)
        .send(expense({ code: 'G-203.1' })),
      400,
      'code_inactive',
    );
    const inactive = await app.http.get(`${base}/codes?active=false`).set(treasurer.auth).expect(200);
    expect(inactive.body.data.map((code: { code: string }) => code.code)).toEqual(['G-203.1']);

    await app.http.post(`${base}/codes`).set(treasurer.auth).send({ code: 'I-107', kind: 'income', name: 'Rifas', donation: false }).expect(201);
    await app.http.delete(`${base}/codes/I-107`).set(treasurer.auth).expect(204);
    expectProblem(await app.http.delete(`${base}/codes/I-107`).set(treasurer.auth), 404);
    expectProblem(await app.http.patch(`${base}/codes/I-107`).set(treasurer.auth).send({ name: 'x' }), 404);
    expectProblem(await app.http.patch(`${base}/codes/G-201`).set(treasurer.auth).send({ donation: true }), 400);
  });

  it('reports by code with totals equal to the ledger, as JSON, CSV and a workbook with the same rows', async () => {
    const { app, treasurer } = s;
    // A catalogue name that would run as a formula in a spreadsheet.
    await app.http.post(`${base}/codes`).set(treasurer.auth).send({ code: 'G-290', kind: 'expense', name: '=HYPERLINK("http://x.invalid","gastos")' }).expect(201);
    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(expense({ code: 'G-290', amount: 1_234, counterparty: { name: '@malicioso' } }))
      .expect(201);

    const ledger = (await app.http.get(`${base}/entries?limit=1`).set(treasurer.auth).expect(200)).body.totals;
    const json = await app.http.get(`${base}/report`).set(treasurer.auth).expect(200);
    expect(json.body.totals).toEqual({ income: ledger.income, expenses: ledger.expenses, balance: ledger.balance });
    const rows = json.body.rows as { code: string; kind: string; entries: number; total: number }[];
    expect(rows.reduce((sum, row) => sum + row.entries, 0)).toBe(ledger.entries);
    for (const row of rows.filter((code) => code.entries > 0)) {
      const byCode = (await app.http.get(`${base}/entries`).query({ code: row.code, limit: 1 }).set(treasurer.auth).expect(200)).body.totals;
      expect(row.total).toBe(row.kind === 'income' ? byCode.income : byCode.expenses);
    }

    const csv = await app.http.get(`${base}/report?format=csv`).set(treasurer.auth).expect(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toContain('reporte-financiero.csv');
    const table = parse(csv.text, { bom: true }) as string[][];
    expect(table[0]).toEqual(['Código', 'Tipo', 'Concepto', 'Movimientos', 'Total (COP)']);
    const totalRow = (label: string) => Number(table.find((row) => row[2] === label)![4]);
    expect(totalRow('TOTAL INGRESOS')).toBe(ledger.income);
    expect(totalRow('TOTAL GASTOS')).toBe(ledger.expenses);
    expect(totalRow('SALDO')).toBe(ledger.balance);
    const codeRows = table.slice(1, -3);
    expect(codeRows.filter((row) => row[1] === 'Gasto').reduce((sum, row) => sum + Number(row[4]), 0)).toBe(ledger.expenses);
    expect(codeRows.filter((row) => row[1] === 'Ingreso').reduce((sum, row) => sum + Number(row[4]), 0)).toBe(ledger.income);
    expect(table.find((row) => row[0] === 'G-290')![2]).toBe(`'=HYPERLINK("http://x.invalid","gastos")`);

    const xlsx = await app.http.get(`${base}/report?format=xlsx`).set(treasurer.auth).buffer(true).parse(binary).expect(200);
    expect(xlsx.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const workbook = new Workbook();
    await workbook.xlsx.load(arrayBufferOf(xlsx.body as Buffer));
    const sheetRows = (name: string) => {
      const out: string[][] = [];
      workbook.getWorksheet(name)!.eachRow({ includeEmpty: true }, (row) => {
        const cells: string[] = [];
        for (let column = 1; column <= row.cellCount; column++) cells.push(String(row.getCell(column).value ?? ''));
        out.push(cells);
      });
      return out;
    };
    const summary = sheetRows('Resumen');
    const unguarded = table.map((row) => row.map((cell) => (cell.startsWith("'=") ? cell.slice(1) : cell)));
    expect(
      summary.map((row) =>
        row
          .slice(0, 5)
          .concat(Array(Math.max(0, 5 - row.length)).fill(''))
          .slice(0, 5),
      ),
    ).toEqual(unguarded);
    const detail = sheetRows('Detalle');
    expect(detail.length - 1).toBe(ledger.entries);
    expect(detail.slice(1).reduce((sum, row) => sum + Number(row[6]), 0)).toBe(ledger.income + ledger.expenses);

    const ranged = await app.http
      .get(`${base}/report?from=${shift(-25)}&to=${shift(-10)}`)
      .set(treasurer.auth)
      .expect(200);
    const rangedLedger = (
      await app.http
        .get(`${base}/entries?from=${shift(-25)}&to=${shift(-10)}&limit=1`)
        .set(treasurer.auth)
        .expect(200)
    ).body.totals;
    expect(ranged.body.totals).toEqual({ income: rangedLedger.income, expenses: rangedLedger.expenses, balance: rangedLedger.balance });
    expectProblem(await app.http.get(`${base}/report?from=${shift(-1)}&to=${shift(-3)}`).set(treasurer.auth), 400);
    expectProblem(await app.http.get(`${base}/report?format=pdf`).set(treasurer.auth), 400);
  });
});

describe.each(FILE_STORES)('receipts (%s file store)', (store) => {
  let s: Staff;
  beforeAll(async () => {
    s = await startFinance(await fileStoreEnv(store));
  });
  afterAll(() => stop(s));

  it('stores a receipt checked by its bytes, streams it back, and refuses the wrong type or a large one', async () => {
    const { app, treasurer } = s;
    const files = app.runtime.deps.files;
    const entry = (await app.http.post(`${base}/entries`).set(treasurer.auth).send(expense()).expect(201)).body;
    const url = `${base}/entries/${entry.id}/receipt`;
    expectProblem(await app.http.get(url).set(treasurer.auth), 404);

    const uploaded = await app.http.put(url).set(treasurer.auth).set('Content-Type', 'image/jpeg').send(JPEG).expect(200);
    const sha256 = (await import('node:crypto')).createHash('sha256').update(JPEG).digest('hex');
    expect(uploaded.body.receipt).toMatchObject({ sha256, type: 'image/jpeg', size: JPEG.length });
    expect(await storedBytes(files, 'finance/receipts', entry.id)).toEqual(JPEG);
    const back = await app.http.get(url).set(treasurer.auth).buffer(true).parse(binary).expect(200);
    expect(back.headers['content-type']).toBe('image/jpeg');
    expect(back.headers['content-disposition']).toContain(`recibo-${entry.id}.jpg`);
    expect(back.body).toEqual(JPEG);

    // A replacement, as PDF; the GET answers with the new type.
    await app.http.put(url).set(treasurer.auth).set('Content-Type', 'application/pdf').send(PDF).expect(200);
    const pdf = await app.http.get(url).set(treasurer.auth).buffer(true).parse(binary).expect(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.body).toEqual(PDF);
    await app.http.put(url).set(treasurer.auth).set('Content-Type', 'image/png').send(PNG).expect(200);

    expectProblem(await app.http.put(url).set(treasurer.auth).set('Content-Type', 'image/png').send(JPEG), 415, 'receipt_type_mismatch');
    expectProblem(await app.http.put(url).set(treasurer.auth).set('Content-Type', 'application/pdf').send(Buffer.from('MZ not a pdf at all')), 415, 'receipt_type_mismatch');
    expectProblem(await app.http.put(url).set(treasurer.auth).set('Content-Type', 'text/plain').send('%PDF-1.4 text'), 415, 'unsupported_media_type');
    expectProblem(await app.http.put(url).set(treasurer.auth).set('Content-Type', 'image/gif').send(Buffer.from('GIF89a')), 415);
    expectProblem(await app.http.put(url).set(treasurer.auth).set('Content-Type', 'image/jpeg').send(Buffer.alloc(0)), 400, 'empty_body');
    const large = Buffer.concat([JPEG, Buffer.alloc(5 * 1024 * 1024)]);
    expectProblem(await app.http.put(url).set(treasurer.auth).set('Content-Type', 'image/jpeg').send(large), 413, 'payload_too_large');
    expectProblem(await app.http.put(`${base}/entries/01960000-0000-7000-8000-000000000000/receipt`).set(treasurer.auth).set('Content-Type', 'image/jpeg').send(JPEG), 404);
    expectProblem(await app.http.put(url).set(s.viewer.auth).set('Content-Type', 'image/jpeg').send(JPEG), 403);

    // The refused uploads left the PNG in place and no stray files.
    const stored = await app.http.get(`${base}/entries/${entry.id}`).set(treasurer.auth).expect(200);
    expect(stored.body.receipt).toMatchObject({ type: 'image/png', size: PNG.length });
    expect(await storedNames(files, 'finance/receipts', { staged: true })).toEqual([entry.id]);
    const history = await app.http.get(`${base}/entries/${entry.id}/history`).set(treasurer.auth).expect(200);
    expect(history.body.data.map((row: { action: string }) => row.action)).toEqual(['create', 'receipt', 'receipt', 'receipt']);
    expect(history.body.data[2].changes.receipt).toEqual({
      before: { sha256, type: 'image/jpeg', size: JPEG.length },
      after: expect.objectContaining({ type: 'application/pdf' }),
    });
  });
});

describe('spending cap, donor limit and the summary', () => {
  let s: Staff;
  beforeAll(async () => {
    s = await startFinance();
  });
  afterAll(() => stop(s));

  it('says when no cap is set and refuses nothing for it', async () => {
    const { app, treasurer, viewer } = s;
    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(expense({ amount: 900_000_000 }))
      .expect(201);
    const summary = await app.http.get(`${base}/summary`).set(viewer.auth).expect(200);
    expect(summary.body).toMatchObject({ cap: null, capUsedPct: null, remainingToCap: null, daysToElection: null, projectedSpend: null });
    expect(summary.body.warnings.map((warning: { code: string }) => warning.code)).toEqual(['cap_not_set', 'election_date_not_set']);
    // Without a cap there is no donor limit either.
    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(donation({ amount: 500_000_000 }))
      .expect(201);
    const reversal = await app.http.get(`${base}/entries?limit=200`).set(treasurer.auth).expect(200);
    for (const row of reversal.body.data) await app.http.post(`${base}/entries/${row.id}/reverse`).set(treasurer.auth).send({ reason: 'Prueba sin tope' }).expect(201);
    expect((await app.http.get(`${base}/summary`).set(viewer.auth).expect(200)).body).toMatchObject({ income: 0, expenses: 0, balance: 0 });
  });

  it('warns at 80 % and 95 %, refuses what passes the cap, and lets a manager override with a reason', async () => {
    const { app, manager, treasurer, viewer } = s;
    await app.http
      .put(`${base}/settings`)
      .set(manager.auth)
      .send({ spendingCap: 1_000_000, electionDate: shift(10) })
      .expect(200);
    const codes = async () => (await app.http.get(`${base}/summary`).set(viewer.auth).expect(200)).body;

    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(expense({ amount: 700_000 }))
      .expect(201);
    let summary = await codes();
    expect(summary).toMatchObject({ expenses: 700_000, cap: 1_000_000, capUsedPct: 70, remainingToCap: 300_000, daysToElection: 10 });
    expect(summary.warnings.filter((warning: { code: string }) => warning.code.startsWith('cap_'))).toEqual([]);

    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(expense({ amount: 150_000 }))
      .expect(201);
    summary = await codes();
    expect(summary.capUsedPct).toBe(85);
    expect(summary.warnings).toContainEqual(expect.objectContaining({ code: 'cap_80', level: 'warning' }));

    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(expense({ amount: 110_000 }))
      .expect(201);
    summary = await codes();
    expect(summary.capUsedPct).toBe(96);
    expect(summary.warnings).toContainEqual(expect.objectContaining({ code: 'cap_95', level: 'critical' }));
    expect(summary.warnings.map((warning: { code: string }) => warning.code)).not.toContain('cap_80');

    // 40,000 left: exactly that is fine later; 100,000 is not.
    const over = expense({ amount: 100_000 });
    const refused = expectProblem(await app.http.post(`${base}/entries`).set(treasurer.auth).send(over), 409, 'cap_exceeded');
    expect(refused.detail).toContain('40,000 pesos left');
    expectProblem(
      await app.http
        .post(`${base}/entries`)
        .set(treasurer.auth)
        .send({ ...over, override: { reason: 'Aprobado por gerencia' } }),
      403,
      'forbidden',
    );
    expectProblem(
      await app.http
        .post(`${base}/entries`)
        .set(manager.auth)
        .send({ ...over, override: { reason: '' } }),
      400,
    );
    const forced = await app.http
      .post(`${base}/entries`)
      .set(manager.auth)
      .send({ ...over, override: { reason: 'Pauta ya contratada; se ajusta el presupuesto' } })
      .expect(201);
    expect(forced.body.override).toEqual({ reason: 'Pauta ya contratada; se ajusta el presupuesto', byId: manager.id, rules: ['cap_exceeded'] });
    const history = await app.http.get(`${base}/entries/${forced.body.id}/history`).set(manager.auth).expect(200);
    expect(history.body.data[0]).toMatchObject({ action: 'create', reason: 'Pauta ya contratada; se ajusta el presupuesto' });

    summary = await codes();
    expect(summary).toMatchObject({ expenses: 1_060_000, capUsedPct: 106, remainingToCap: -60_000 });
    expect(summary.warnings).toContainEqual(expect.objectContaining({ code: 'cap_reached', level: 'critical' }));
    // Editing what does not add to spending is not refused, even above the cap; adding is.
    await app.http.patch(`${base}/entries/${forced.body.id}`).set(treasurer.auth).send({ description: 'Pauta radial' }).expect(200);
    await app.http.patch(`${base}/entries/${forced.body.id}`).set(treasurer.auth).send({ amount: 90_000 }).expect(200);
    expectProblem(await app.http.patch(`${base}/entries/${forced.body.id}`).set(treasurer.auth).send({ amount: 95_000 }), 409, 'cap_exceeded');
    // Income is never refused for the cap.
    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(donation({ code: 'I-101', donorType: 'own', amount: 5_000_000 }))
      .expect(201);
  });

  it('projects the spend at the last 30 days’ rate to the election day', async () => {
    const { app, manager, treasurer, viewer } = s;
    await app.http
      .put(`${base}/settings`)
      .set(manager.auth)
      .send({ spendingCap: 100_000_000, electionDate: shift(20) })
      .expect(200);
    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(expense({ amount: 600_000, date: shift(-29) }))
      .expect(201);
    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(expense({ amount: 5_000_000, date: shift(-30) }))
      .expect(201);
    const summary = (await app.http.get(`${base}/summary`).set(viewer.auth).expect(200)).body;
    const recent = 1_050_000 + 600_000; // today's entries of the previous test plus the one 29 days ago
    expect(summary.expenses).toBe(recent + 5_000_000);
    expect(summary.dailySpendRate).toBe(Math.round((recent / 30) * 10) / 10);
    expect(summary.projectedSpend).toBe(Math.round(summary.expenses + (recent / 30) * 20));
    expect(summary.income).toBe(5_000_000);
    expect(summary.balance).toBe(5_000_000 - summary.expenses);
    const g203 = summary.byCode.find((row: { code: string }) => row.code === 'G-203');
    expect(g203.total).toBe(summary.expenses);

    // At this rate the cap is not reached; at a tight cap the projection warns.
    await app.http
      .put(`${base}/settings`)
      .set(manager.auth)
      .send({ spendingCap: summary.expenses + 100_000, electionDate: shift(20) })
      .expect(200);
    const tight = (await app.http.get(`${base}/summary`).set(viewer.auth).expect(200)).body;
    expect(tight.warnings).toContainEqual(expect.objectContaining({ code: 'projection_over_cap' }));
  });

  it('refuses a donation that takes one donor past 10 % of the cap, by NIT or cédula however typed', async () => {
    const { app, manager, treasurer } = s;
    const settings = await app.http
      .put(`${base}/settings`)
      .set(manager.auth)
      .send({ spendingCap: 10_000_000, electionDate: shift(20) })
      .expect(200);
    expect(settings.body).toMatchObject({ donorLimitShare: 0.1, donorLimit: 1_000_000 });
    // Spending is already above this cap; donations are income and are judged on their own limit.

    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(donation({ amount: 600_000, counterparty: { name: 'Marta Ruiz', idNumber: '52.987.654' } }))
      .expect(201);
    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(donation({ amount: 400_000, counterparty: { name: 'Marta Ruiz', idNumber: '52987654' } }))
      .expect(201);
    const refused = expectProblem(
      await app.http
        .post(`${base}/entries`)
        .set(treasurer.auth)
        .send(donation({ amount: 1, counterparty: { name: 'M. Ruiz', idNumber: '52 987 654' } })),
      409,
      'donor_limit_exceeded',
    );
    expect(refused.detail).toContain('Ley 1475 de 2011, art. 23');
    // Another donor, the party and the candidate's own money are not this donor's limit.
    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(donation({ amount: 1_000_000, donorType: 'company', counterparty: { name: 'Comercial Andina', idNumber: '900.123.456-7' } }))
      .expect(201);
    expectProblem(
      await app.http
        .post(`${base}/entries`)
        .set(treasurer.auth)
        .send(donation({ amount: 5, donorType: 'company', counterparty: { name: 'Comercial Andina S.A.', idNumber: '900123456' } })),
      409,
      'donor_limit_exceeded',
    );
    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(donation({ amount: 3_000_000, donorType: 'party', counterparty: { name: 'Partido Verde Esperanza', idNumber: '860.000.111-1' } }))
      .expect(201);
    // A manager may let it through, with the reason kept.
    const forced = await app.http
      .post(`${base}/entries`)
      .set(manager.auth)
      .send(donation({ amount: 50_000, counterparty: { name: 'Marta Ruiz', idNumber: '52987654' }, override: { reason: 'Devolución acordada del excedente' } }))
      .expect(201);
    expect(forced.body.override.rules).toEqual(['donor_limit_exceeded']);
    // Raising the share lifts the limit.
    await app.http
      .put(`${base}/settings`)
      .set(manager.auth)
      .send({ spendingCap: 10_000_000, electionDate: shift(20), donorLimitShare: 0.2 })
      .expect(200);
    await app.http
      .post(`${base}/entries`)
      .set(treasurer.auth)
      .send(donation({ amount: 900_000, counterparty: { name: 'Marta Ruiz', idNumber: '52987654' } }))
      .expect(201);
  });

  it('validates the settings', async () => {
    const { app, manager } = s;
    const bad: [Record<string, unknown>, string][] = [
      [{ spendingCap: 0, electionDate: shift(5) }, 'body.spendingCap'],
      [{ spendingCap: 1.5, electionDate: shift(5) }, 'body.spendingCap'],
      [{ spendingCap: 1000, electionDate: 'mañana' }, 'body.electionDate'],
      [{ spendingCap: 1000, electionDate: shift(5), donorLimitShare: 0 }, 'body.donorLimitShare'],
      [{ spendingCap: 1000, electionDate: shift(5), donorLimitShare: 1.5 }, 'body.donorLimitShare'],
      [{ spendingCap: 1000, electionDate: shift(5), donorLimitShare: 0.12345 }, 'body.donorLimitShare'],
      [{ electionDate: shift(5) }, 'body.spendingCap'],
    ];
    for (const [body, path] of bad) expect(paths(expectProblem(await app.http.put(`${base}/settings`).set(manager.auth).send(body), 400))).toContain(path);
    const cleared = await app.http.put(`${base}/settings`).set(manager.auth).send({ spendingCap: null, electionDate: null }).expect(200);
    expect(cleared.body).toMatchObject({ spendingCap: null, electionDate: null, donorLimit: null, donorLimitShare: 0.2, updatedById: manager.id });
  });
});

describe('periods, reversals and the audit', () => {
  let s: Staff;
  beforeAll(async () => {
    s = await startFinance();
  });
  afterAll(() => stop(s));

  it('reverses an entry once, with the opposite amount dated today, linked both ways', async () => {
    const { app, treasurer } = s;
    const original = (
      await app.http
        .post(`${base}/entries`)
        .set(treasurer.auth)
        .send(expense({ amount: 250_000, date: shift(-4), code: 'G-208', counterparty: { name: 'Testigos Bolívar' } }))
        .expect(201)
    ).body;
    const reversal = await app.http.post(`${base}/entries/${original.id}/reverse`).set(treasurer.auth).send({ reason: 'Factura anulada' }).expect(201);
    expect(reversal.body).toMatchObject({
      kind: 'expense',
      amount: -250_000,
      date: today(),
      code: 'G-208',
      counterparty: { name: 'Testigos Bolívar', idNumber: null },
      description: 'Factura anulada',
      reversesId: original.id,
      reversedById: null,
    });
    const after = await app.http.get(`${base}/entries/${original.id}`).set(treasurer.auth).expect(200);
    expect(after.body.reversedById).toBe(reversal.body.id);
    const listed = await app.http.get(`${base}/entries?code=G-208`).set(treasurer.auth).expect(200);
    expect(listed.body.totals).toEqual({ entries: 2, income: 0, expenses: 0, balance: 0 });
    expect(listed.body.data.find((row: { id: string }) => row.id === original.id).reversedById).toBe(reversal.body.id);

    expectProblem(await app.http.post(`${base}/entries/${original.id}/reverse`).set(treasurer.auth).send({}), 409, 'already_reversed');
    expectProblem(await app.http.post(`${base}/entries/${reversal.body.id}/reverse`).set(treasurer.auth).send({}), 409, 'reversal_entry');
    expectProblem(await app.http.patch(`${base}/entries/${original.id}`).set(treasurer.auth).send({ amount: 1 }), 409, 'already_reversed');
    expectProblem(await app.http.patch(`${base}/entries/${reversal.body.id}`).set(treasurer.auth).send({ amount: 1 }), 409, 'reversal_entry');
    expectProblem(await app.http.post(`${base}/entries/01960000-0000-7000-8000-000000000000/reverse`).set(treasurer.auth).send({}), 404);
    const reversals = await app.runtime.deps.db.first<{ n: number }>(sql`select count(*)::int as n from finance_entries where reverses_id = ${original.id}`);
    expect(reversals!.n).toBe(1);

    const history = await app.http.get(`${base}/entries/${original.id}/history`).set(treasurer.auth).expect(200);
    expect(history.body.data.map((row: { action: string }) => row.action)).toEqual(['create', 'reverse']);
    expect(history.body.data[1]).toMatchObject({ actorId: treasurer.id, reason: 'Factura anulada', changes: { reversedById: { before: null, after: reversal.body.id } } });
  });

  it('two reversals at once: one wins, the other is told', async () => {
    const { app, treasurer, manager } = s;
    const original = (await app.http.post(`${base}/entries`).set(treasurer.auth).send(expense()).expect(201)).body;
    const answers = await Promise.all([
      app.http.post(`${base}/entries/${original.id}/reverse`).set(treasurer.auth).send({}),
      app.http.post(`${base}/entries/${original.id}/reverse`).set(manager.auth).send({}),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
  });

  it('closes a period for good: no edits, additions or deletions there; reversals still correct it', async () => {
    const { app, manager, treasurer } = s;
    const old = (
      await app.http
        .post(`${base}/entries`)
        .set(treasurer.auth)
        .send(expense({ amount: 80_000, date: shift(-10) }))
        .expect(201)
    ).body;
    const open = (
      await app.http
        .post(`${base}/entries`)
        .set(treasurer.auth)
        .send(expense({ amount: 90_000, date: shift(-2) }))
        .expect(201)
    ).body;
    const settings = { spendingCap: 500_000_000, electionDate: shift(30) };
    await app.http
      .put(`${base}/settings`)
      .set(manager.auth)
      .send({ ...settings, closedThrough: shift(-5) })
      .expect(200);
    expectProblem(
      await app.http
        .put(`${base}/settings`)
        .set(treasurer.auth)
        .send({ ...settings, closedThrough: shift(-4) }),
      403,
    );

    const closed = await app.http.get(`${base}/entries/${old.id}`).set(treasurer.auth).expect(200);
    expect(closed.body.periodClosed).toBe(true);
    expectProblem(await app.http.patch(`${base}/entries/${old.id}`).set(treasurer.auth).send({ description: 'cambio' }), 409, 'period_closed');
    expectProblem(
      await app.http
        .post(`${base}/entries`)
        .set(treasurer.auth)
        .send(expense({ date: shift(-6) })),
      409,
      'period_closed',
    );
    expectProblem(
      await app.http
        .patch(`${base}/entries/${open.id}`)
        .set(treasurer.auth)
        .send({ date: shift(-5) }),
      409,
      'period_closed',
    );
    await app.http
      .patch(`${base}/entries/${open.id}`)
      .set(treasurer.auth)
      .send({ date: shift(-4) })
      .expect(200);

    // The database holds the rule too, whoever writes.
    const db = app.runtime.deps.db;
    await expect(db.write(sql`update finance_entries set amount = 1 where id = ${old.id}`)).rejects.toThrow();
    await expect(db.write(sql`delete from finance_entries where id = ${old.id}`)).rejects.toThrow();

    // A first receipt may still be attached; a second is a change.
    await app.http.put(`${base}/entries/${old.id}/receipt`).set(treasurer.auth).set('Content-Type', 'application/pdf').send(PDF).expect(200);
    expectProblem(await app.http.put(`${base}/entries/${old.id}/receipt`).set(treasurer.auth).set('Content-Type', 'application/pdf').send(PDF), 409, 'period_closed');

    const reversal = await app.http.post(`${base}/entries/${old.id}/reverse`).set(treasurer.auth).send({ reason: 'Error de digitación' }).expect(201);
    expect(reversal.body).toMatchObject({ date: today(), amount: -80_000, periodClosed: false });

    // It only moves forward, and only to a day that is over.
    expectProblem(
      await app.http
        .put(`${base}/settings`)
        .set(manager.auth)
        .send({ ...settings, closedThrough: shift(-6) }),
      409,
      'period_closed',
    );
    expect(
      paths(
        expectProblem(
          await app.http
            .put(`${base}/settings`)
            .set(manager.auth)
            .send({ ...settings, closedThrough: today() }),
          400,
        ),
      ),
    ).toContain('body.closedThrough');
    const unchanged = await app.http.put(`${base}/settings`).set(manager.auth).send(settings).expect(200);
    expect(unchanged.body.closedThrough).toBe(shift(-5));
    const forward = await app.http
      .put(`${base}/settings`)
      .set(manager.auth)
      .send({ ...settings, closedThrough: shift(-1) })
      .expect(200);
    expect(forward.body.closedThrough).toBe(shift(-1));
    expectProblem(await app.http.patch(`${base}/entries/${open.id}`).set(treasurer.auth).send({ amount: 1 }), 409, 'period_closed');
  });

  it('keeps an append-only audit of every change', async () => {
    const { app, treasurer, manager } = s;
    const entry = (
      await app.http
        .post(`${base}/entries`)
        .set(treasurer.auth)
        .send(donation({ amount: 10_000 }))
        .expect(201)
    ).body;
    await app.http
      .patch(`${base}/entries/${entry.id}`)
      .set(manager.auth)
      .send({ counterparty: { name: 'Ana María Pérez', idNumber: '1020304050' }, notes: 'Consignación' })
      .expect(200);
    await app.http.put(`${base}/entries/${entry.id}/receipt`).set(treasurer.auth).set('Content-Type', 'image/png').send(PNG).expect(200);
    await app.http.post(`${base}/entries/${entry.id}/reverse`).set(manager.auth).send({}).expect(201);

    const history = await app.http.get(`${base}/entries/${entry.id}/history`).set(treasurer.auth).expect(200);
    const rows = history.body.data as { action: string; actorId: string; at: string; changes: Record<string, { before: unknown; after: unknown }> }[];
    expect(rows.map((row) => [row.action, row.actorId])).toEqual([
      ['create', treasurer.id],
      ['update', manager.id],
      ['receipt', treasurer.id],
      ['reverse', manager.id],
    ]);
    expect(rows[0]!.changes).toMatchObject({ kind: { before: null, after: 'income' }, amount: { before: null, after: 10_000 }, donorType: { before: null, after: 'person' } });
    expect(rows[1]!.changes).toEqual({ 'counterparty.name': { before: 'Ana Pérez', after: 'Ana María Pérez' }, notes: { before: null, after: 'Consignación' } });
    expect(rows.map((row) => row.at)).toEqual([...rows.map((row) => row.at)].sort());

    const db = app.runtime.deps.db;
    await expect(db.write(sql`update finance_audit set reason = 'x' where entry_id = ${entry.id}`)).rejects.toThrow();
    await expect(db.write(sql`delete from finance_audit where entry_id = ${entry.id}`)).rejects.toThrow();
    const settingsAudit = await db.first<{ n: number }>(sql`select count(*)::int as n from finance_audit where action = 'settings'`);
    expect(settingsAudit!.n).toBeGreaterThan(0);
    expectProblem(await app.http.get(`${base}/entries/01960000-0000-7000-8000-000000000000/history`).set(treasurer.auth), 404);
  });
});
