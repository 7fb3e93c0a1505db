import { Button, Group } from '@mantine/core';
import { Link, useLocation } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { emailPolicy } from '../../../src/modules/email/email.policy';
import { useSignedIn } from '../app/session';

const SECTIONS = [
  { path: '/correo', label: 'Campañas', roles: emailPolicy.roles('readCampaigns') },
  { path: '/correo/plantillas', label: 'Plantillas', roles: emailPolicy.roles('readTemplates') },
] as const;

/** Links between the email campaigns and the templates, as one row under the title. */
export function EmailTabs() {
  const { user } = useSignedIn();
  const { pathname } = useLocation();
  const sections = SECTIONS.filter((section) => rolePermitted(user.role, section.roles));
  const current = pathname.startsWith('/correo/plantillas') ? '/correo/plantillas' : '/correo';
  return (
    <Group component="nav" aria-label="Secciones de correo" gap={4} mb="xs">
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
