import { emailPolicy } from '../../../src/modules/email/email.policy';
import { SectionTabs, type Section } from '../app/SectionTabs';

const SECTIONS: readonly Section[] = [
  { path: '/correo', label: 'Campañas', roles: emailPolicy.roles('readCampaigns') },
  { path: '/correo/plantillas', label: 'Plantillas', roles: emailPolicy.roles('readTemplates') },
];

/** Links between the email campaigns and the templates, as one row under the title. */
export function EmailTabs() {
  return <SectionTabs label="Secciones de correo" sections={SECTIONS} />;
}
