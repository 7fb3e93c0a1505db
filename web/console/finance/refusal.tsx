import { Alert, Stack, Text } from '@mantine/core';
import { rolePermitted, type Role } from '../../../src/kernel/auth/roles';
import { financePolicy } from '../../../src/modules/finance/finance.policy';
import { roles as ROLE_LABELS } from '../../lib/labels';
import { RULE_LAWS, ruleRefusal, whoMay, type OverridableRule, type Settings, type Summary } from './data';

const RULE_TITLES: Record<OverridableRule, string> = {
  cap_exceeded: 'Rechazado: pasa el tope de gastos',
  donor_limit_exceeded: 'Rechazado: pasa el límite por donante',
};

/**
 * A refusal for a rule of the law (the cap, the donor limit), as the API named it: what the rule
 * is and where the law says it, and the way through it — who may authorise it, with a reason that
 * stays on the entry and in its audit. A role that may not is told whom to ask.
 */
export function RuleRefusal({ rule, role, summary, settings }: { rule: OverridableRule; role: Role; summary: Summary | undefined; settings: Settings | undefined }) {
  const mayOverride = rolePermitted(role, financePolicy.roles('override'));
  return (
    <Alert color="red" role="alert" title={RULE_TITLES[rule]}>
      <Stack gap={6}>
        <Text size="sm">{ruleRefusal(rule, summary, settings)}</Text>
        <Text size="sm" fw={600}>
          {RULE_LAWS[rule]}.
        </Text>
        <Text size="sm">
          {mayOverride
            ? 'Puede registrarlo de todos modos con una autorización: escriba la razón abajo; queda en el movimiento y en su historial.'
            : `Su rol (${ROLE_LABELS[role]}) no puede autorizarlo. Solo ${whoMay('override')} puede registrarlo sobre el límite, con una razón que queda en el registro.`}
        </Text>
      </Stack>
    </Alert>
  );
}
