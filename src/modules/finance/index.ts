import type { ModuleManifest } from '../../kernel/module';
import { financeEntities } from './finance.entities';
import { financePersonalData } from './finance.personal-data';
import { financeRouter } from './finance.routes';
import { financeTimeline } from './finance.timeline';

/** Campaign finance: the ledger, the spending cap and donor limit, receipts, the audit and the Cuentas Claras report (docs/finance.md). */
export const financeModule: ModuleManifest = {
  name: 'finance',
  entities: financeEntities,
  routers: [financeRouter],
  personTimeline: financeTimeline,
  personalData: financePersonalData,
};

export { financeBalance } from './finance.figures.repository';
export { spendByDay } from './finance.repository';
export { financePolicy } from './finance.policy';
export type { CapSummary } from './finance.summary';
