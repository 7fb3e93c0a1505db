import { Alert, Button, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { useNavigate } from 'react-router';
import { createCampaignBody } from '../../../src/modules/qr/qr.schemas';
import { api } from '../app/api';
import { useSchemaForm } from '../app/forms';
import { PageTitle } from '../app/pages';
import { invalidateServerLists } from '../app/ServerTable';
import { LANDING_FORM_OPTIONS, LandingFields } from './LandingFields';
import { CAMPAIGNS_PATH, STATUS_LABELS, type Campaign } from './data';

/** A new poster campaign and its landing page; the consent text and the privacy link are checked as they are typed, by the API's own rules. */
export default function NewCampaignPage() {
  const navigate = useNavigate();
  const { form, submit, submitting, formError } = useSchemaForm(createCampaignBody, {
    initialValues: {
      name: '',
      status: 'draft' as 'draft' | 'active',
      landing: { title: 'Súmate a la campaña', intro: '', consentText: '', privacyPolicyUrl: '', thankYouMessage: '¡Gracias! Recibimos tus datos.' },
    },
    ...LANDING_FORM_OPTIONS,
  });
  const onSubmit = submit(async (values) => {
    const created = await api.post<Campaign>(CAMPAIGNS_PATH, values);
    await invalidateServerLists(CAMPAIGNS_PATH);
    void navigate(`/afiches/${created.id}`);
  });
  return (
    <>
      <PageTitle>Nueva campaña de afiches</PageTitle>
      <form onSubmit={onSubmit} noValidate>
        <Stack maw={720}>
          {formError && (
            <Alert color="red" role="alert">
              {formError}
            </Alert>
          )}
          <TextInput label="Nombre de la campaña" required {...form.getInputProps('name')} />
          <NativeSelect
            label="Estado al crearla"
            description="Un borrador no recibe datos; actívela cuando los afiches estén en la calle."
            data={(['draft', 'active'] as const).map((value) => ({ value, label: STATUS_LABELS[value] }))}
            {...form.getInputProps('status')}
          />
          <LandingFields field={form.getInputProps} consentLength={form.getValues().landing.consentText.trim().length} />
          <Text size="sm" c="dimmed">
            Después de crearla podrá generar los códigos e imprimir la hoja de afiches.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => void navigate('/afiches')}>
              Cancelar
            </Button>
            <Button type="submit" loading={submitting}>
              Crear campaña
            </Button>
          </Group>
        </Stack>
      </form>
    </>
  );
}
