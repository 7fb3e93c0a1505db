import { Alert, Button, Card, Group, Loader, NumberInput, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { z } from 'zod';
import { rolePermitted } from '../../../src/kernel/auth/roles';
import { financePolicy } from '../../../src/modules/finance/finance.policy';
import { settingsBody } from '../../../src/modules/finance/finance.schemas';
import { api, queryClient } from '../app/api';
import { formatPesos } from '../app/format';
import { useSchemaForm } from '../app/forms';
import { PageTitle } from '../app/pages';
import { useSignedIn } from '../app/session';
import { CapGauge } from './CapGauge';
import { FINANCE_PROBLEMS, SETTINGS, financeProblem, whoMay, type Settings } from './data';
import { FinanceTabs } from './FinanceTabs';
import { useSummary } from './LedgerPage';
import { useSettings } from './NewEntryPage';

interface CapForm extends Record<string, unknown> {
  spendingCap: number | string;
  electionDate: string;
  /** The share as a percentage on screen (10 for 0.1), as the law says it. */
  donorLimitShare: number | string;
}

const capSchema = settingsBody as unknown as z.ZodType<unknown, CapForm>;

/** The manager's settings the gauge depends on: the cap, the election day, the donor limit's share. */
function CapSettings({ settings }: { settings: Settings }) {
  const { form, submit, submitting, formError } = useSchemaForm<CapForm>(
    capSchema,
    {
      initialValues: { spendingCap: settings.spendingCap ?? '', electionDate: settings.electionDate ?? '', donorLimitShare: settings.donorLimitShare },
      emptyAs: { spendingCap: 'null', electionDate: 'null' },
    },
    FINANCE_PROBLEMS,
  );
  const onSubmit = submit(async (values) => {
    await api.put<Settings>(SETTINGS, values);
    await queryClient.invalidateQueries({ queryKey: ['finance'] });
    notifications.show({ color: 'green', message: 'Se guardaron el tope y las fechas.' });
  });
  return (
    <Card withBorder component="section" aria-labelledby="cap-settings-title">
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          <Title order={2} size="h4" id="cap-settings-title">
            Tope, elección y límite por donante
          </Title>
          {formError && (
            <Alert color="red" role="alert">
              {formError}
            </Alert>
          )}
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <NumberInput
              label="Tope de gastos (pesos)"
              description="El que fija el CNE para la elección (Ley 1475 de 2011, art. 24). Vacío: sin tope."
              min={1}
              allowDecimal={false}
              allowNegative={false}
              thousandSeparator="."
              decimalSeparator=","
              {...form.getInputProps('spendingCap')}
            />
            <TextInput type="date" label="Día de la elección" description="El de la campaña (también lo usa el día electoral)." {...form.getInputProps('electionDate')} />
            <NumberInput
              label="Límite por donante (fracción del tope)"
              description={`Ley 1475 de 2011, art. 23: 0,1 es el 10 %. Hoy: ${settings.donorLimit === null ? 'sin límite (no hay tope)' : formatPesos(settings.donorLimit)}.`}
              min={0.0001}
              max={1}
              step={0.01}
              decimalScale={4}
              decimalSeparator=","
              thousandSeparator="."
              {...form.getInputProps('donorLimitShare')}
            />
          </SimpleGrid>
          <Group justify="flex-end">
            <Button type="submit" loading={submitting}>
              Guardar
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

/** `/finanzas/tope`: the cap's gauge with the API's warnings and projection, and, for managers, its settings. */
export default function CapPage() {
  const { user } = useSignedIn();
  const configures = rolePermitted(user.role, financePolicy.roles('configure'));
  const summary = useSummary();
  const settings = useSettings();
  return (
    <>
      <PageTitle>Tope y proyección</PageTitle>
      <FinanceTabs />
      <Stack>
        {summary.isError && (
          <Alert color="red" role="alert">
            {financeProblem(summary.error)}
          </Alert>
        )}
        {summary.data ? <CapGauge summary={summary.data} /> : !summary.isError && <Loader aria-label="Cargando" />}
        {configures && settings.data && <CapSettings key={settings.data.updatedAt} settings={settings.data} />}
        {!configures && <Text size="sm">El tope, el día de la elección y el límite por donante los cambia {whoMay('configure')}.</Text>}
      </Stack>
    </>
  );
}
