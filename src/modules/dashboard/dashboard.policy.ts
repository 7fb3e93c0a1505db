import { definePolicy } from '../../kernel/policy';

/**
 * The campaign's screens: managers and viewers read every figure the dashboard shows (they hold
 * no personal data); a treasurer reads the money figures only. Whether money shows at all follows
 * finance's own rule (`financePolicy.readSummary`: totals, never a counterparty), checked per figure.
 */
export const dashboardPolicy = definePolicy({
  readOverview: { roles: ['manager', 'viewer', 'treasurer'] },
  /** Every KPI that is not money. */
  readCampaignFigures: { roles: ['manager', 'viewer'] },
  readTrends: { roles: ['manager', 'viewer', 'treasurer'] },
  readMap: { roles: ['manager', 'viewer'] },
});
