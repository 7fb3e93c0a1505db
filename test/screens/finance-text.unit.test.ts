/**
 * What the finance screens compute themselves, without a browser: empty fields inside an object
 * left out as the API takes them, the entry form's errors in Spanish from the API's own schema,
 * who may override in words from the policy, and a rule's refusal with the figures the screen has.
 */
// The console's API client keeps its session in the browser's sessionStorage: nothing here sends a request.
jest.mock('../../web/console/app/api', () => ({ api: {}, queryClient: {}, ApiError: class ApiError extends Error {} }));

import { createEntryBody } from '../../src/modules/finance/finance.schemas';
import { schemaErrors, withoutEmpty } from '../../web/console/app/forms';
import { ruleRefusal, whoMay, type Settings, type Summary } from '../../web/console/finance/data';

const form = {
  kind: 'expense',
  date: '2026-11-20',
  amount: 800_000,
  code: 'G-203',
  counterparty: { name: 'Vallas del Caribe S.A.S.', idNumber: '' },
  description: ' ',
};

describe('empty fields as the API takes them', () => {
  it('leaves out or nulls a field inside an object by its dotted name, without changing the form’s values', () => {
    const sent = withoutEmpty(form, { 'counterparty.idNumber': 'absent', description: 'absent' });
    expect(sent).toEqual({ kind: 'expense', date: '2026-11-20', amount: 800_000, code: 'G-203', counterparty: { name: 'Vallas del Caribe S.A.S.' } });
    expect(form.counterparty).toEqual({ name: 'Vallas del Caribe S.A.S.', idNumber: '' });
    expect(withoutEmpty(form, { 'counterparty.idNumber': 'null' }).counterparty).toEqual({ name: 'Vallas del Caribe S.A.S.', idNumber: null });
    // A path through something that is not an object is left alone.
    expect(withoutEmpty(form, { 'code.part': 'absent' } as never)).toEqual(form);
  });

  it('checks the entry with the API’s schema: a good one has no errors, a bad one is said on its field', () => {
    const sent = withoutEmpty(form, { 'counterparty.idNumber': 'absent', description: 'absent' });
    expect(schemaErrors(createEntryBody, sent)).toEqual({});
    const errors = schemaErrors(createEntryBody, { ...sent, amount: 10.5, counterparty: { name: 'X', idNumber: '1' } }, { 'counterparty.idNumber': 'Un NIT o una cédula.' });
    expect(Object.keys(errors).sort()).toEqual(['amount', 'counterparty.idNumber']);
    expect(errors['counterparty.idNumber']).toBe('Un NIT o una cédula.');
  });
});

describe('the rules in words', () => {
  it('names who may override from the policy', () => {
    expect(whoMay('override')).toBe('Equipo de campaña o Administración');
    expect(whoMay('record')).toBe('Equipo de campaña, Tesorería o Administración');
  });

  it('says a refusal with what is left under the cap, or the donor limit and its share', () => {
    const summary = { cap: 10_000_000, remainingToCap: 500_000 } as Summary;
    const settings = { spendingCap: 10_000_000, donorLimit: 1_000_000, donorLimitShare: 0.1 } as Settings;
    const normal = (text: string) => text.replace(/\s+/g, ' ');
    expect(normal(ruleRefusal('cap_exceeded', summary, settings))).toBe(
      'Este gasto haría pasar el gasto total de la campaña por encima del tope de gastos de $ 10.000.000 (quedan $ 500.000).',
    );
    expect(normal(ruleRefusal('cap_exceeded', { ...summary, remainingToCap: -700_000 }, settings))).toContain('(quedan $ 0)');
    expect(normal(ruleRefusal('donor_limit_exceeded', summary, settings))).toBe(
      'Esta donación haría pasar los aportes de este donante por encima del límite por donante de $ 1.000.000 (10 % del tope de gastos).',
    );
  });
});
