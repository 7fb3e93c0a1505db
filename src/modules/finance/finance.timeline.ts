import type { PersonTimelineHolder, TimelineEntry } from '../../kernel/module';
import { sql } from '../../kernel/sql';
import { audienceContacts } from '../audience';
import { financePolicy } from './finance.policy';

interface DonationRow {
  id: string;
  created_at: Date;
  date: string;
  amount: string | number;
  code: string;
  code_name: string;
  donor_type: string | null;
  reverses_id: string | null;
}

const pesos = new Intl.NumberFormat('es-CO', { style: 'currency', currency: 'COP', maximumFractionDigits: 0 });

/**
 * A person's donations on their page, for roles that may read the books (`financePolicy.read`):
 * others get nothing from here. The ledger names donors by NIT or cédula, not by contact, so a
 * donation is the person's when its donor's number is their cédula; a reversal shows as such.
 */
export const financeTimeline: PersonTimelineHolder = {
  async items(q, { contactId, actor, before, limit }) {
    if (!financePolicy.allows(actor, 'read')) return [];
    const rows = await q.rows(sql<DonationRow>`
      select e.id, e.created_at, e.date, e.amount, e.code, k.name as code_name, e.donor_type, e.reverses_id
      from finance_entries e join finance_codes k on k.code = e.code
      where e.kind = 'income' and k.donation
        and e.counterparty_id_number = (select p.document_id from ${audienceContacts()} p where p.id = ${contactId}::uuid)
        ${before ? sql`and e.created_at < ${before}` : sql``}
      order by e.created_at desc, e.id desc limit ${limit}`);
    return rows.map((row): TimelineEntry => {
      const amount = Number(row.amount);
      return {
        at: row.created_at,
        kind: row.reverses_id ? 'donation_reversed' : 'donation',
        title: row.reverses_id ? `Donación anulada: ${pesos.format(-amount)}` : `Donación: ${pesos.format(amount)}`,
        refId: row.id,
        detail: { amount, date: row.date, code: row.code, codeName: row.code_name, donorType: row.donor_type, reverses: row.reverses_id },
      };
    });
  },
};
