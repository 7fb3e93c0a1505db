import { TextInput, Textarea } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';

/** The consent text's minimum, as `landingInput` has it (shown counting while typed). */
const CONSENT_MIN = 20;

/** What the campaign forms share: the legal pieces checked while typed, beside their fields, not only on saving; the privacy link's rule said in Spanish. */
export const LANDING_FORM_OPTIONS = {
  validateInputOnChange: ['landing.consentText', 'landing.privacyPolicyUrl'],
  messages: { 'landing.privacyPolicyUrl': 'Escriba la dirección completa de la política de tratamiento de datos, empezando por https://' } as Record<string, string>,
};

type LandingPath = 'landing.title' | 'landing.intro' | 'landing.consentText' | 'landing.privacyPolicyUrl' | 'landing.thankYouMessage';

/** The landing page's fields, for a new campaign and for one being changed. */
export function LandingFields({ field, consentLength }: { field: (path: LandingPath) => GetInputPropsReturnType; consentLength: number }) {
  return (
    <>
      <TextInput label="Título de la página" required {...field('landing.title')} />
      <Textarea label="Texto de presentación" autosize minRows={2} {...field('landing.intro')} />
      <Textarea
        label="Texto de autorización (Ley 1581)"
        description={`Se muestra completo junto a la casilla de autorización: quién es responsable de los datos, para qué se usan y los derechos de la persona. Al menos ${CONSENT_MIN} caracteres (lleva ${consentLength}).`}
        required
        autosize
        minRows={4}
        {...field('landing.consentText')}
      />
      <TextInput
        label="Enlace a la política de tratamiento de datos"
        description="Dirección web completa (https://…), la que la página enlaza junto a la autorización."
        required
        type="url"
        {...field('landing.privacyPolicyUrl')}
      />
      <TextInput label="Mensaje de agradecimiento" {...field('landing.thankYouMessage')} />
    </>
  );
}
