import { definePolicy } from '../../kernel/policy';

/**
 * Treasurers and managers keep the books; screens (viewers) see the summary's totals and nothing
 * that names a counterparty. Only managers set the cap and close periods, and only they may let an
 * entry through the cap or the donor limit, so the person recording cannot waive the rule.
 */
export const financePolicy = definePolicy({
  readSummary: { roles: ['manager', 'treasurer', 'viewer'] },
  read: { roles: ['manager', 'treasurer'] },
  record: { roles: ['manager', 'treasurer'] },
  configure: { roles: ['manager'] },
  override: { roles: ['manager'], refusal: 'Only a manager may override the spending cap or the donor limit.' },
});
