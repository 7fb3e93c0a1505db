/** Spanish labels for the API's codes, shared by both screens. */
export const incidentTypes: Record<string, string> = {
  violence: 'Violencia',
  vote_buying: 'Compra de votos',
  material_missing: 'Falta material electoral',
  station_closed: 'Puesto cerrado',
  witness_denied: 'Testigo sin acceso',
  other: 'Otro',
};

export const severities: Record<string, string> = { low: 'baja', medium: 'media', high: 'alta', critical: 'crítica' };

export const phases: Record<string, string> = { before_open: 'antes de la apertura', open: 'urnas abiertas', closed: 'urnas cerradas' };

export const contactOutcomes: Record<string, string> = {
  reached: 'Contestó',
  no_answer: 'No contestó',
  wrong_number: 'Número equivocado',
  refused: 'No quiere',
  on_the_way: 'Va en camino',
};

export const roles: Record<import('../../src/kernel/auth/roles').Role, string> = {
  admin: 'Administración',
  manager: 'Equipo de campaña',
  treasurer: 'Tesorería',
  brigade: 'Brigada',
  volunteer: 'Voluntariado',
  viewer: 'Solo lectura',
};
