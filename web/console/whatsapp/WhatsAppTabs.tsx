import { whatsappPolicy } from '../../../src/modules/whatsapp/whatsapp.policy';
import { SectionTabs } from '../app/SectionTabs';

/** The WhatsApp screens, each for the roles of the policy action it is for (a viewer follows campaigns but holds no conversations). */
const SECTIONS = [
  { path: '/whatsapp', label: 'Conversaciones', roles: whatsappPolicy.roles('converse') },
  { path: '/whatsapp/campanas', label: 'Campañas', roles: whatsappPolicy.roles('readCampaigns') },
  { path: '/whatsapp/campanas/plantillas', label: 'Plantillas', roles: whatsappPolicy.roles('readTemplates') },
] as const;

/** Links between the inbox, the campaigns and the templates, as one row under the title. */
export function WhatsAppTabs() {
  return <SectionTabs label="Secciones de WhatsApp" sections={SECTIONS} />;
}
