import { Button, Group } from '@mantine/core';
import { Link, useLocation } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { whatsappPolicy } from '../../../src/modules/whatsapp/whatsapp.policy';
import { useSignedIn } from '../app/session';

/** The WhatsApp screens, each for the roles of the policy action it is for (a viewer follows campaigns but holds no conversations). */
const SECTIONS = [
  { path: '/whatsapp', label: 'Conversaciones', roles: whatsappPolicy.roles('converse') },
  { path: '/whatsapp/campanas', label: 'Campañas', roles: whatsappPolicy.roles('readCampaigns') },
  { path: '/whatsapp/campanas/plantillas', label: 'Plantillas', roles: whatsappPolicy.roles('readTemplates') },
] as const;

/** The section a path belongs to: the longest section path it starts with. */
export function currentSection(pathname: string): string | undefined {
  const path = pathname.replace(/\/+$/, '') || '/';
  return SECTIONS.filter((section) => path === section.path || path.startsWith(`${section.path}/`))
    .map((section) => section.path)
    .sort((a, b) => b.length - a.length)[0];
}

/** Links between the inbox, the campaigns and the templates, as one row under the title. */
export function WhatsAppTabs() {
  const { user } = useSignedIn();
  const { pathname } = useLocation();
  const sections = SECTIONS.filter((section) => rolePermitted(user.role, section.roles));
  if (sections.length < 2) return null;
  const current = currentSection(pathname);
  return (
    <Group component="nav" aria-label="Secciones de WhatsApp" gap={4} mb="xs">
      {sections.map((section) => (
        <Button
          key={section.path}
          component={Link}
          to={section.path}
          size="compact-sm"
          variant={current === section.path ? 'filled' : 'subtle'}
          aria-current={current === section.path ? 'page' : undefined}
        >
          {section.label}
        </Button>
      ))}
    </Group>
  );
}
