import { lazy } from 'react';
import { Route, Routes } from 'react-router';
import { NotFoundPage } from '../app/pages';
import CampaignsPage from './CampaignsPage';

const NewCampaignPage = lazy(() => import('./NewCampaignPage'));
const CampaignPage = lazy(() => import('./CampaignPage'));
const EditCampaignPage = lazy(() => import('./EditCampaignPage'));
const LeadsPage = lazy(() => import('./LeadsPage'));

/** Poster QR campaigns: the list at /afiches, a new one, each campaign's codes, posters and figures, and the people they brought in. */
export default function PostersPage() {
  return (
    <Routes>
      <Route index element={<CampaignsPage />} />
      <Route path="nueva" element={<NewCampaignPage />} />
      <Route path="contactos" element={<LeadsPage />} />
      <Route path=":id" element={<CampaignPage />} />
      <Route path=":id/editar" element={<EditCampaignPage />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
