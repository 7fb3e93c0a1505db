import { lazy } from 'react';
import { Route, Routes } from 'react-router';
import { NotFoundPage } from '../app/pages';
import LedgerPage from './LedgerPage';

const NewEntryPage = lazy(() => import('./NewEntryPage'));
const EntryPage = lazy(() => import('./EntryPage'));
const EditEntryPage = lazy(() => import('./EditEntryPage'));
const CapPage = lazy(() => import('./CapPage'));
const EventBudgetsPage = lazy(() => import('./EventBudgetsPage'));
const PeriodsPage = lazy(() => import('./PeriodsPage'));
const ReportPage = lazy(() => import('./ReportPage'));

/** The campaign's books: the ledger by the Formulario 5B catalogue, an entry and its receipt, the cap, event budgets, closed periods and the report. */
export default function FinancePage() {
  return (
    <Routes>
      <Route index element={<LedgerPage />} />
      <Route path="nuevo" element={<NewEntryPage />} />
      <Route path="tope" element={<CapPage />} />
      <Route path="eventos" element={<EventBudgetsPage />} />
      <Route path="cierre" element={<PeriodsPage />} />
      <Route path="informe" element={<ReportPage />} />
      <Route path="movimientos/:id" element={<EntryPage />} />
      <Route path="movimientos/:id/corregir" element={<EditEntryPage />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
