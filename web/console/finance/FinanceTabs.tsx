import { financePolicy } from '../../../src/modules/finance/finance.policy';
import { SectionTabs } from '../app/SectionTabs';

/** The finance screens, each for the roles of the policy action it is for. */
const SECTIONS = [
  { path: '/finanzas', label: 'Libro', roles: financePolicy.roles('read') },
  { path: '/finanzas/tope', label: 'Tope y proyección', roles: financePolicy.roles('readSummary') },
  { path: '/finanzas/eventos', label: 'Presupuestos de eventos', roles: financePolicy.roles('read') },
  { path: '/finanzas/cierre', label: 'Periodos cerrados', roles: financePolicy.roles('read') },
  { path: '/finanzas/informe', label: 'Informe', roles: financePolicy.roles('read') },
] as const;

export function FinanceTabs() {
  return <SectionTabs label="Secciones de finanzas" sections={SECTIONS} />;
}
