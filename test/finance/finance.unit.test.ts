import { Readable } from 'node:stream';
import { safeCell } from '../../src/kernel/spreadsheet';
import { financePolicy } from '../../src/modules/finance/finance.policy';
import { detectReceiptType, readBody } from '../../src/modules/finance/finance.receipts';
import { normaliseIdNumber, settingsBody } from '../../src/modules/finance/finance.schemas';
import { changesBetween } from '../../src/modules/finance/finance.service';
import { capSummary, donorLimit, rateWindowStart } from '../../src/modules/finance/finance.summary';
import { allowedRoles } from '../helpers/policy';

const codes = (summary: ReturnType<typeof capSummary>) => summary.warnings.map((warning) => warning.code);

describe('capSummary', () => {
  const settings = { spendingCap: 1_000_000, electionDate: '2026-03-08' };
  const at = (expenses: number, recentExpenses = 0) => capSummary({ income: 2_000_000, expenses, recentExpenses }, settings, '2026-03-01');

  it('warns from 80 %, critically from 95 %, and says when the cap is reached', () => {
    expect(codes(at(799_000))).toEqual([]);
    expect(at(799_999)).toMatchObject({ capUsedPct: 80 });
    expect(codes(at(799_999))).toEqual([]);
    expect(codes(at(800_000))).toEqual(['cap_80']);
    expect(codes(at(949_000))).toEqual(['cap_80']);
    expect(codes(at(950_000))).toEqual(['cap_95']);
    expect(codes(at(999_999))).toEqual(['cap_95']);
    expect(codes(at(1_000_000))).toEqual(['cap_reached']);
    expect(at(1_200_000)).toMatchObject({ capUsedPct: 120, remainingToCap: -200_000, balance: 800_000 });
  });

  it('projects expenses + the 30-day mean × days to the election, and warns when that passes the cap', () => {
    const summary = at(500_000, 300_000);
    expect(summary).toMatchObject({ daysToElection: 7, dailySpendRate: 10_000, projectedSpend: 570_000 });
    expect(codes(at(500_000, 3_000_000))).toEqual(['projection_over_cap']);
    expect(at(500_000, 3_000_000).projectedSpend).toBe(1_200_000);
  });

  it('projects nothing more once the election is past, and says what is missing', () => {
    expect(capSummary({ income: 0, expenses: 100, recentExpenses: 3000 }, { spendingCap: 1000, electionDate: '2026-02-20' }, '2026-03-01')).toMatchObject({
      daysToElection: -9,
      projectedSpend: 100,
    });
    const bare = capSummary({ income: 5, expenses: 7, recentExpenses: 0 }, { spendingCap: null, electionDate: null }, '2026-03-01');
    expect(bare).toMatchObject({ cap: null, capUsedPct: null, remainingToCap: null, daysToElection: null, projectedSpend: null, balance: -2 });
    expect(codes(bare)).toEqual(['cap_not_set', 'election_date_not_set']);
  });

  it('averages over 30 days that end today', () => {
    expect(rateWindowStart('2026-03-01')).toBe('2026-01-31');
    expect(rateWindowStart('2024-03-30')).toBe('2024-03-01');
  });
});

describe('donorLimit', () => {
  it('is the cap times the share, rounded down, exact where floating point is not', () => {
    expect(donorLimit(null, 0.1)).toBeNull();
    expect(donorLimit(1_000_000, 0.1)).toBe(100_000);
    expect(0.29 * 100).toBeLessThan(29);
    expect(donorLimit(100, 0.29)).toBe(29);
    expect(donorLimit(10_000_000_000_000, 0.1)).toBe(1_000_000_000_000);
    expect(donorLimit(999, 0.1)).toBe(99);
  });

  it('takes shares of at most four decimals', () => {
    const parse = (donorLimitShare: number) => settingsBody.safeParse({ spendingCap: 1, electionDate: null, donorLimitShare }).success;
    expect(parse(0.1)).toBe(true);
    expect(parse(0.2925)).toBe(true);
    expect(parse(0.29251)).toBe(false);
  });
});

describe('normaliseIdNumber', () => {
  it('keeps one key per donor however the number is typed', () => {
    expect(normaliseIdNumber('1.020.304.050')).toBe('1020304050');
    expect(normaliseIdNumber(' 1020 304 050 ')).toBe('1020304050');
    expect(normaliseIdNumber('900.123.456-7')).toBe('900123456');
    expect(normaliseIdNumber('900123456')).toBe('900123456');
    expect(normaliseIdNumber('pa-123')).toBeUndefined();
    expect(normaliseIdNumber('AB123456')).toBe('AB123456');
    expect(normaliseIdNumber('ab123456')).toBe('AB123456');
    expect(normaliseIdNumber('12')).toBeUndefined();
    expect(normaliseIdNumber('900123456-78')).toBeUndefined();
    expect(normaliseIdNumber('')).toBeUndefined();
  });
});

describe('receipts', () => {
  it('tells JPEG, PNG and PDF by their first bytes, and nothing else', () => {
    expect(detectReceiptType(Buffer.from([0xff, 0xd8, 0xff, 0xdb, 0x00]))).toBe('image/jpeg');
    expect(detectReceiptType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00]))).toBe('image/png');
    expect(detectReceiptType(Buffer.from('%PDF-1.4\n'))).toBe('application/pdf');
    expect(detectReceiptType(Buffer.from('GIF89a'))).toBeUndefined();
    expect(detectReceiptType(Buffer.from([0xff, 0xd8]))).toBeUndefined();
    expect(detectReceiptType(Buffer.from(' %PDF-1.4'))).toBeUndefined();
    expect(detectReceiptType(Buffer.alloc(0))).toBeUndefined();
  });

  it('reads a body up to the limit and refuses one past it, declared or not', async () => {
    const chunks = (sizes: number[]) => Readable.from(sizes.map((size) => Buffer.alloc(size, 1)));
    expect((await readBody(chunks([4, 6]), undefined, 10)).length).toBe(10);
    await expect(readBody(chunks([4, 7]), undefined, 10)).rejects.toMatchObject({ status: 413, code: 'payload_too_large' });
    await expect(readBody(chunks([1]), 11, 10)).rejects.toMatchObject({ status: 413 });
  });
});

describe('changesBetween', () => {
  it('lists only the fields that changed, each with before and after', () => {
    expect(changesBetween({ amount: 5, code: 'G-201', notes: null }, { amount: 6, code: 'G-201', notes: 'x' })).toEqual({
      amount: { before: 5, after: 6 },
      notes: { before: null, after: 'x' },
    });
    expect(changesBetween({ override: { reason: 'a', rules: ['cap_exceeded'] } }, { override: { reason: 'a', rules: ['cap_exceeded'] } })).toEqual({});
  });

  it('lists every field with a value when there was no before', () => {
    expect(changesBetween(null, { amount: 5, notes: null })).toEqual({ amount: { before: null, after: 5 } });
  });
});

describe('safeCell', () => {
  it('defuses what a spreadsheet would run as a formula', () => {
    expect(safeCell('=SUM(A1)')).toBe("'=SUM(A1)");
    expect(safeCell('@cmd')).toBe("'@cmd");
    expect(safeCell('+57+HYPERLINK("http://evil")')).toBe(`'+57+HYPERLINK("http://evil")`);
    expect(safeCell("-2+3+cmd|' /C calc'!A0")).toBe(`'-2+3+cmd|' /C calc'!A0`);
    expect(safeCell('\t=1')).toBe("'\t=1");
    expect(safeCell('+')).toBe("'+");
    expect(safeCell('Vallas S.A.S.')).toBe('Vallas S.A.S.');
    expect(safeCell(null)).toBe('');
  });

  it('leaves a phone or a signed number as it is: digits, spaces and ( ) . - call nothing', () => {
    expect(safeCell('+573001234567')).toBe('+573001234567');
    expect(safeCell('+57 (300) 123-4567')).toBe('+57 (300) 123-4567');
    expect(safeCell('-15000')).toBe('-15000');
    expect(safeCell('-15.000,50')).toBe("'-15.000,50"); // a comma is not in the set: defused all the same
  });
});

describe('financePolicy', () => {
  it('lets treasurers and managers keep the books, viewers see the summary, managers alone configure and override', () => {
    expect(allowedRoles(financePolicy, 'readSummary')).toEqual(['admin', 'manager', 'treasurer', 'viewer']);
    expect(allowedRoles(financePolicy, 'read')).toEqual(['admin', 'manager', 'treasurer']);
    expect(allowedRoles(financePolicy, 'record')).toEqual(['admin', 'manager', 'treasurer']);
    expect(allowedRoles(financePolicy, 'configure')).toEqual(['admin', 'manager']);
    expect(allowedRoles(financePolicy, 'override')).toEqual(['admin', 'manager']);
  });
});
