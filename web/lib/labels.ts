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

/** A WhatsApp message's delivery in words (the ticks' meaning), by the API's status. */
export const messageStatuses: Record<import('../../src/modules/whatsapp/whatsapp.codes').MessageStatus, string> = {
  queued: 'En cola',
  sending: 'Enviando',
  in_doubt: 'Sin confirmar',
  accepted: 'Aceptado por WhatsApp',
  sent: 'Enviado',
  failed: 'No se entregó',
  delivered: 'Entregado',
  read: 'Leído',
  skipped: 'No enviado',
  cancelled: 'Cancelado',
  received: 'Recibido',
};

/** A person's consent for one channel (the People API's `consent`). */
export const consentStates: Record<import('../../src/modules/audience/audience.people.schemas').ConsentState, string> = {
  reachable: 'Acepta mensajes',
  opted_out: 'Pidió no recibir mensajes',
  no_consent: 'Sin autorización registrada',
};

export const pqrsTypes: Record<import('../../src/modules/pqrs/pqrs.entities').PqrsType, string> = {
  peticion: 'Petición',
  queja: 'Queja',
  reclamo: 'Reclamo',
  sugerencia: 'Sugerencia',
  denuncia: 'Denuncia',
  consulta: 'Consulta',
  informacion: 'Solicitud de información',
};

export const pqrsStatuses: Record<import('../../src/modules/pqrs/pqrs.entities').PqrsStatus, string> = {
  received: 'Radicada',
  in_progress: 'En trámite',
  waiting_citizen: 'Esperando al ciudadano',
  answered: 'Respondida',
  closed: 'Cerrada',
};
