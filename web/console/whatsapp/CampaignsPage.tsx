import { Route, Routes } from 'react-router';
import { NotFoundPage } from '../app/pages';
import { CampaignDetail } from './CampaignDetail';
import { CampaignForm } from './CampaignForm';
import { CampaignList } from './CampaignList';
import { TemplateForm, TemplatesPage } from './TemplatesPage';

/**
 * WhatsApp's mass sends, beside the inbox: `/whatsapp/campanas` lists the campaigns, `nueva` writes
 * one, `:id` follows one live; `plantillas` lists the templates and `plantillas/nueva` writes one.
 */
export default function CampaignsPage() {
  return (
    <Routes>
      <Route index element={<CampaignList />} />
      <Route path="nueva" element={<CampaignForm />} />
      <Route path="plantillas" element={<TemplatesPage />} />
      <Route path="plantillas/nueva" element={<TemplateForm />} />
      <Route path=":campaignId" element={<CampaignDetail />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
