import type { TestApp } from './app';
import type { TestUser } from './users';

export const CONSENT_TEXT =
  'Autorizo a la Campaña Ejemplo, responsable del tratamiento, a usar mis datos para informarme de sus propuestas y actividades, según la Ley 1581 de 2012. Puedo conocer, actualizar, rectificar y suprimir mis datos escribiendo a datos@ejemplo.co.';

export function campaignBody(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Afiches Kennedy',
    status: 'active',
    landing: {
      title: 'Súmate a la campaña',
      intro: 'Déjanos tus datos y te contamos.',
      interests: ['salud', 'seguridad', { value: 'empleo', label: 'Empleo y emprendimiento' }],
      consentText: CONSENT_TEXT,
      privacyPolicyUrl: 'https://ejemplo.co/privacidad',
    },
    ...overrides,
  };
}

export async function createCampaign(app: TestApp, manager: TestUser, overrides: Record<string, unknown> = {}) {
  const response = await app.http.post('/api/poster-qr/campaigns').set(manager.auth).send(campaignBody(overrides)).expect(201);
  return response.body as { id: string; status: string; consentTextId: string };
}

export async function generateCodes(app: TestApp, manager: TestUser, campaignId: string, body: Record<string, unknown> = { count: 2 }) {
  const response = await app.http.post(`/api/poster-qr/campaigns/${campaignId}/generate-codes`).set(manager.auth).send(body).expect(201);
  return response.body.codes as { id: string; code: string; url: string; label: string; svgUrl: string; pngUrl: string }[];
}

export function lead(code: string, overrides: Record<string, unknown> = {}) {
  return { code, name: 'Ana María Rojas', phone: '300 123 4567', email: 'ana@example.org', interests: ['salud'], consent: true, whatsappOptIn: true, ...overrides };
}
