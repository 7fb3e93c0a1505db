import { Anchor, Badge, Button, Group, Text } from '@mantine/core';
import { Link } from 'react-router';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { emailPolicy } from '../../../src/modules/email/email.policy';
import { formatDateTime } from '../app/format';
import { PageTitle } from '../app/pages';
import { ServerTable, type Column } from '../app/ServerTable';
import { useSignedIn } from '../app/session';
import { EmailTabs } from './EmailTabs';
import { TEMPLATES_PATH, type EmailTemplateSummary } from './data';

/** The templates, newest first, paged by the server. A template never changes: an edit saves a new one. */
export function TemplateList() {
  const { user } = useSignedIn();
  const columns: Column<EmailTemplateSummary>[] = [
    {
      key: 'name',
      header: 'Plantilla',
      render: (template) => (
        <Anchor component={Link} to={`/correo/plantillas/${template.id}`} fw={600}>
          {template.name}
        </Anchor>
      ),
    },
    { key: 'subject', header: 'Asunto', render: (template) => template.subject },
    {
      key: 'kind',
      header: 'Formato',
      render: (template) => (
        <Badge variant="light" color="gray" tt="none" c="#40464d">
          {template.sourceKind === 'mjml' ? 'MJML' : 'HTML'}
        </Badge>
      ),
    },
    { key: 'links', header: 'Enlaces', numeric: true, render: (template) => template.links.length },
    { key: 'created', header: 'Creada', render: (template) => formatDateTime(template.createdAt) },
  ];
  return (
    <>
      <PageTitle
        actions={
          rolePermitted(user.role, emailPolicy.roles('manageTemplates')) && (
            <Button component={Link} to="/correo/plantillas/nueva">
              Nueva plantilla
            </Button>
          )
        }
      >
        Plantillas de correo
      </PageTitle>
      <EmailTabs />
      <Group mb="sm">
        <Text size="sm" c="dimmed">
          Una plantilla no cambia después de guardada (las campañas envían lo que se validó): editarla guarda una versión nueva.
        </Text>
      </Group>
      <ServerTable
        caption="Plantillas de correo"
        path={TEMPLATES_PATH}
        columns={columns}
        rowKey={(template) => template.id}
        empty="Aún no hay plantillas. Cree una en MJML y vea cómo se ve en escritorio y en el teléfono."
      />
    </>
  );
}
