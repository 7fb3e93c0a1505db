import { Alert, Button, Group, Loader, Stack, Text, TextInput } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import { updateCampaignBody } from '../../../src/modules/qr/qr.schemas';
import { api } from '../app/api';
import { useSchemaForm } from '../app/forms';
import { PageTitle } from '../app/pages';
import { problemMessage } from '../app/problems';
import { invalidateServerLists } from '../app/ServerTable';
import { CAMPAIGNS_PATH, type Campaign } from './data';
import { LANDING_FORM_OPTIONS, LandingFields } from './LandingFields';

/** Changes a campaign's name and landing page; the options the form does not show (interests, fields asked) are sent as they are. */
function EditForm({ campaign }: { campaign: Campaign }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { form, submit, submitting, formError } = useSchemaForm(updateCampaignBody, {
    initialValues: { name: campaign.name, landing: { ...campaign.landing } },
    ...LANDING_FORM_OPTIONS,
  });
  const onSubmit = submit(async (values) => {
    await api.patch<Campaign>(`${CAMPAIGNS_PATH}/${campaign.id}`, values);
    await queryClient.invalidateQueries({ queryKey: ['poster-campaign', campaign.id] });
    await invalidateServerLists(CAMPAIGNS_PATH);
    void navigate(`/afiches/${campaign.id}`);
  });
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack maw={720}>
        {formError && (
          <Alert color="red" role="alert">
            {formError}
          </Alert>
        )}
        <TextInput label="Nombre de la campaña" required {...form.getInputProps('name')} />
        <LandingFields field={form.getInputProps} consentLength={(form.getValues().landing?.consentText ?? '').trim().length} />
        <Text size="sm" c="dimmed">
          Un texto de autorización nuevo se guarda como otra versión: cada autorización ya dada sigue apuntando al texto que la persona vio.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => void navigate(`/afiches/${campaign.id}`)}>
            Cancelar
          </Button>
          <Button type="submit" loading={submitting}>
            Guardar cambios
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export default function EditCampaignPage() {
  const { id = '' } = useParams();
  const campaign = useQuery({ queryKey: ['poster-campaign', id], queryFn: () => api.get<Campaign>(`${CAMPAIGNS_PATH}/${id}`) });
  return (
    <>
      <PageTitle>{campaign.data ? `Editar: ${campaign.data.name}` : 'Editar campaña'}</PageTitle>
      {campaign.isPending && <Loader aria-label="Cargando campaña" />}
      {campaign.isError && (
        <Alert color="red" role="alert">
          {problemMessage(campaign.error)}
        </Alert>
      )}
      {campaign.data && <EditForm campaign={campaign.data} />}
    </>
  );
}
