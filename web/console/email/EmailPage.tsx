import { Route, Routes } from 'react-router';
import { NotFoundPage } from '../app/pages';
import { CampaignDetail } from './CampaignDetail';
import { CampaignForm, EditCampaignForm } from './CampaignForm';
import { CampaignList } from './CampaignList';
import { TemplateEditor } from './TemplateEditor';
import { TemplateList } from './TemplateList';

/**
 * Email marketing: `/correo` lists the campaigns, `nueva` writes one, `:id` follows one live (`:id/editar` changes it until it starts) with its
 * figures and A/B decision; `plantillas` lists the templates, `plantillas/nueva` and
 * `plantillas/:id` open the MJML editor with its live preview and test send.
 */
export default function EmailPage() {
  return (
    <Routes>
      <Route index element={<CampaignList />} />
      <Route path="nueva" element={<CampaignForm />} />
      <Route path="plantillas" element={<TemplateList />} />
      <Route path="plantillas/nueva" element={<TemplateEditor />} />
      <Route path="plantillas/:templateId" element={<TemplateEditor />} />
      <Route path=":campaignId" element={<CampaignDetail />} />
      <Route path=":campaignId/editar" element={<EditCampaignForm />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
