import { analyseSentiment, extractHashtags, extractMentions, matchKeywords, normaliseForSearch, type SentimentLabel } from '../../src/modules/social/social.text';

/** Posts written for this test in the voice of Colombian political accounts; labels are what a campaign analyst would file them under. */
const POSITIVE_POSTS = [
  'Excelente propuesta de @MariaLopezAlcaldia para el transporte en Bogotá, por fin alguien con visión 👏 #BogotáMejor',
  'Orgulloso de acompañar a nuestro candidato en Medellín hoy. ¡Qué alegría ver la plaza llena! 💪🇨🇴',
  'Gracias a todos los voluntarios que salieron a tocar puertas este fin de semana. Son increíbles ❤️',
  'El debate de anoche fue muy bueno, propuestas claras y respeto entre candidatos. Así sí.',
  'Me encanta la idea de los comedores comunitarios en Ciudad Bolívar, una solución real para el hambre',
  'Felicitaciones a la nueva gobernadora del Valle, le deseamos muchos éxitos 🎉',
  'Buenisima la entrevista del candidato en Caracol, hablo con claridad y honestidad',
  'Con esperanza y mucha fuerza vamos a ganar en octubre 🙌 #VotaPorElCambio',
  'Qué bonito ver a los jóvenes de Cali participando en política. El futuro es de ellos 😍',
  'La inversión en vías terciarias del Cauca es una gran noticia para los campesinos 👍',
  'No es fácil hacer política limpia, pero este equipo lo está logrando. Admirable.',
  'Nunca había visto tanta gente en un cierre de campaña en Barranquilla, impresionante 🔥',
  'Apoyo total a la propuesta de seguridad para los barrios de Soacha. Bien hecho @ConcejoSoacha',
  'Por fin un candidato que habla de salud mental sin tapujos. Valiente y necesario 💙',
  'Increíble trabajo de los testigos electorales, gracias por cuidar cada voto 🙏',
  'La alcaldía cumplió con el parque de Usme, los niños felices 😊 #CumplirEsPosible',
  'Qué buen discurso! Inspirador, honesto y con propuestas concretas para el campo',
  'Bacano el concierto por la paz en Cartagena, mucha gente y muy buena energía ✨',
  'Totalmente de acuerdo con el candidato: la educación pública es la mejor inversión',
  'Este gobierno local ha mejorado mucho el alumbrado en Bucaramanga, se siente más seguro caminar de noche',
  'Feliz de anunciar que nos unimos a la campaña de @JuanRestrepoGob. ¡Vamos con toda! 🇨🇴💪',
  'La reforma a la salud por fin tiene un debate serio y respetuoso en el Congreso. Buena señal.',
];

const NEGATIVE_POSTS = [
  'Qué vergüenza el alcalde de Cali, otra vez incumpliendo con el MIO 😡 #CaliSeRespeta',
  'No es bueno para el país que el candidato siga evadiendo los debates.',
  'Pésima gestión del gobernador, las vías del Huila siguen destruidas',
  'Otro escándalo de corrupción en la contratación de la alcaldía. Ya no más! #NoMasCorrupcion',
  'El candidato mintió en el debate sobre las cifras de empleo. Mentiroso 🤥',
  'Terrible la inseguridad en Bogotá, me robaron el celular en TransMilenio y nadie hace nada',
  'Nunca voy a votar por alguien que defiende a los corruptos.',
  'La reforma tributaria es un golpe duro para la clase media, más impuestos y menos empleo 👎',
  'Triste ver cómo el concejo aprobó el endeudamiento sin ningún debate serio 😔',
  'Que falta de respeto del senador con las víctimas. Indignante.',
  'El metro de Bogotá sigue en veremos, puro cuento y cero resultados',
  'Horrible la atención en el hospital de Quibdó, los pacientes esperando días sin médicos',
  'Este candidato no tiene ni idea de economía, su propuesta es un desastre',
  'Fraude! Compraron votos en la costa y la registraduría no dice nada #FraudeElectoral',
  'Me parece muy grave que amenacen a los líderes sociales en el Catatumbo y el gobierno guarde silencio',
  'Paila con este gobierno, todo lo que prometió quedó en nada 😒',
  'La campaña sucia de @PartidoX contra nuestra candidata es asquerosa y ruin',
  'Otro trancón monumental en la autopista norte, la peor administración en años 😤',
  'Decepcionado del debate, puros ataques personales y ninguna propuesta',
  'El alcalde prometió agua potable para La Guajira y los niños siguen muriendo de sed 💔',
  'No me gusta para nada la forma en que manejan la plata de la salud',
  'Inaceptable que el contralor esté investigado y siga en su cargo',
];

const NEUTRAL_POSTS = [
  'Mañana a las 7 p.m. debate de candidatos a la alcaldía de Medellín por Teleantioquia',
  'La registraduría informa que el cierre de inscripción de cédulas es el 29 de agosto',
  'El candidato estará en Pasto el jueves para reunirse con transportadores #AgendaDeCampaña',
  'Este es el resumen de las propuestas de los cinco aspirantes a la gobernación de Antioquia https://t.co/abc123',
  '¿Dónde queda el puesto de votación del colegio San José en Suba?',
  'Sesión del Concejo de Bogotá hoy: se discute el plan de ordenamiento territorial',
  '@NoticiasRCN ¿a qué hora empieza la transmisión del debate?',
  'Según la encuesta de Invamer, el 34% votaría por el candidato A y el 28% por el candidato B',
  'El Consejo Nacional Electoral publicó la lista de candidatos inscritos para Cundinamarca',
  'La candidata presentará su programa de gobierno este sábado en el Parque Berrío',
  'Hoy se reúnen los gremios con el ministro de Hacienda para hablar de la reforma tributaria',
  'Los jurados de votación deben presentarse a las 7 a.m. en su mesa asignada',
  'Entrevista completa con el aspirante al Senado en el enlace de nuestra bio',
  'El partido anunció que definirá su candidato por encuesta la próxima semana',
  'Recuerden que la ley seca empieza el sábado a las 6 p.m. #Elecciones2027',
  'Transmisión en vivo desde la plaza de Bolívar: rueda de prensa de la Misión de Observación Electoral',
  'El tribunal aplazó la audiencia del exconcejal para el próximo mes',
  'Los candidatos a la alcaldía de Cartagena firmaron hoy el pacto por la transparencia',
  '¿Alguien sabe si el debate de mañana lo pasan también por YouTube?',
  'Mapa de los puestos de votación en Manizales 👉 https://example.co/mapa',
  'El Congreso votará el proyecto de ley en segundo debate el martes',
  'Ya salió el calendario electoral oficial para las elecciones regionales',
];

/** Sarcasm and slang a word lexicon cannot read; reported on every run, never asserted. */
const KNOWN_LIMITS: [post: string, expected: SentimentLabel][] = [
  ['Qué maravilla, otra vez sin agua en el barrio. Gracias, señor alcalde, excelente gestión 🙃', 'negative'],
  ['Bravo, el mejor gobernador del mundo: tres años y el hospital sigue cerrado 👏👏', 'negative'],
  ['Claro que sí, subir los impuestos es justo lo que necesitaba la gente 🤡', 'negative'],
  ['Uy, qué chimba el cierre de campaña, parce 🔥', 'positive'],
];

const LABELLED_POSTS: [post: string, expected: SentimentLabel][] = [
  ...POSITIVE_POSTS.map((post): [string, SentimentLabel] => [post, 'positive']),
  ...NEGATIVE_POSTS.map((post): [string, SentimentLabel] => [post, 'negative']),
  ...NEUTRAL_POSTS.map((post): [string, SentimentLabel] => [post, 'neutral']),
];

const labelOf = (post: string) => analyseSentiment(post).label;

describe('analyseSentiment', () => {
  it('has a balanced labelled set of at least 60 posts', () => {
    expect(LABELLED_POSTS.length).toBeGreaterThanOrEqual(60);
    for (const posts of [POSITIVE_POSTS, NEGATIVE_POSTS, NEUTRAL_POSTS]) expect(posts.length).toBe(LABELLED_POSTS.length / 3);
  });

  it('accuracy ≥ 0.80 on 66 labelled posts (measured 0.85)', () => {
    const correct = LABELLED_POSTS.filter(([post, expected]) => labelOf(post) === expected).length;
    expect(correct / LABELLED_POSTS.length).toBeGreaterThanOrEqual(0.8);
  });

  it('reports the known limits (sarcasm, slang) without asserting them', () => {
    const report = KNOWN_LIMITS.map(([post, expected]) => {
      const { score, label } = analyseSentiment(post);
      return `${label === expected ? 'ok  ' : 'miss'} expected ${expected}, got ${label} (${score.toFixed(3)}): ${post}`;
    });
    console.info(`Sentiment known limits:\n${report.join('\n')}`);
    expect(report).toHaveLength(KNOWN_LIMITS.length);
  });

  it('scores empty text, or text with nothing but links and handles, as neutral 0', () => {
    expect(analyseSentiment('')).toEqual({ score: 0, label: 'neutral' });
    expect(analyseSentiment('   \n ')).toEqual({ score: 0, label: 'neutral' });
    expect(analyseSentiment('@MalaGestion https://t.co/terrible')).toEqual({ score: 0, label: 'neutral' });
  });

  it('flips a negated word', () => {
    expect(labelOf('El candidato es bueno')).toBe('positive');
    expect(labelOf('El candidato no es bueno')).toBe('negative');
    expect(labelOf('Nunca fue honesto con los votantes')).toBe('negative');
    expect(labelOf('Jamas fue honesto con los votantes')).toBe('negative');
    expect(labelOf('No es un fracaso')).toBe('positive');
  });

  it('ends a negation at the clause and leaves emojis unflipped', () => {
    expect(labelOf('No vino al debate, pero su propuesta es excelente')).toBe('positive');
    expect(labelOf('No llegó a tiempo. Excelente discurso')).toBe('positive');
    expect(labelOf('No me gusta 😡')).toBe('negative');
  });

  it('keeps factual posts neutral at exactly 0', () => {
    for (const post of [
      'La registraduría abre las inscripciones el lunes',
      'El debate será el jueves a las 8 p.m. en el canal regional',
      'Resultados del preconteo en https://resultados.example.co #Elecciones2027',
    ]) {
      expect(analyseSentiment(post)).toEqual({ score: 0, label: 'neutral' });
    }
  });

  it('reads words typed without accents, shouted, stretched, or inside hashtags', () => {
    expect(analyseSentiment('Otra vez corrupcion').score).toBe(analyseSentiment('Otra vez corrupción').score);
    expect(analyseSentiment('ES BUENO').score).toBe(analyseSentiment('es bueno').score);
    expect(analyseSentiment('buenooo').score).toBe(analyseSentiment('bueno').score);
    expect(labelOf('#FraudeElectoral')).toBe('negative');
    expect(labelOf('#juntos_por_la_paz')).toBe('positive');
  });

  it('ignores the words of URLs and handles', () => {
    expect(analyseSentiment('Lea https://example.co/excelente-noticia de @PazYFuturo').score).toBe(0);
  });
});

describe('extractHashtags', () => {
  it('returns lower-case tags without #, each once, with accents, ñ, digits and underscores', () => {
    expect(extractHashtags('#Paz #paz #BogotáMejor #NariñoDecide #Año_2027 ¡Vamos #Colombia!')).toEqual(['paz', 'bogotámejor', 'nariñodecide', 'año_2027', 'colombia']);
  });

  it('skips numbers, # inside words and URL fragments', () => {
    expect(extractHashtags('Somos el #1 en C# https://example.co/programa#salud y página#3')).toEqual([]);
  });

  it('returns nothing for text without tags', () => {
    expect(extractHashtags('')).toEqual([]);
    expect(extractHashtags('Hoy no hay etiquetas')).toEqual([]);
  });
});

describe('extractMentions', () => {
  it('returns lower-case handles without @, each once', () => {
    expect(extractMentions('RT @Registraduria: hoy con @JuanP, (@Peñalosa) y @juanp')).toEqual(['registraduria', 'juanp', 'peñalosa']);
  });

  it('keeps inner dots and drops a trailing one', () => {
    expect(extractMentions('Gracias @maria.lopez. Nos vemos @equipo_campaña.')).toEqual(['maria.lopez', 'equipo_campaña']);
  });

  it('does not take e-mail addresses for mentions', () => {
    expect(extractMentions('Escriba a prensa@campana.co o a juan.perez@example.com')).toEqual([]);
  });
});

describe('matchKeywords', () => {
  it('matches whole words whatever the case and punctuation around them', () => {
    expect(matchKeywords('¡PAZ! ya', ['paz'])).toEqual(['paz']);
    expect(matchKeywords('Paz, justicia y trabajo', ['paz'])).toEqual(['paz']);
    expect(matchKeywords('Ese pazguato no sabe nada', ['paz'])).toEqual([]);
    expect(matchKeywords('Queremos la #Paz', ['paz'])).toEqual(['paz']);
  });

  it('ignores accents on either side and returns keywords as configured', () => {
    expect(matchKeywords('Otra vez la corrupcion en BOGOTA', ['Corrupción', 'Bogotá', 'Medellín'])).toEqual(['Corrupción', 'Bogotá']);
    expect(matchKeywords('Caso de corrupción', ['corrupcion'])).toEqual(['corrupcion']);
  });

  it('matches phrases across whitespace but not across punctuation or other word forms', () => {
    const keywords = ['reforma tributaria'];
    expect(matchKeywords('La Reforma  Tributaria llega al Congreso', keywords)).toEqual(keywords);
    expect(matchKeywords('la reforma\ntributaria', keywords)).toEqual(keywords);
    expect(matchKeywords('otra reforma, tributaria o no', keywords)).toEqual([]);
    expect(matchKeywords('las reformas tributarias', keywords)).toEqual([]);
    expect(matchKeywords('No a la #ReformaTributaria', keywords)).toEqual(keywords);
  });

  it('matches a keyword given as #hashtag only as that hashtag', () => {
    expect(matchKeywords('Denuncien el #FraudeElectoral', ['#fraudeelectoral'])).toEqual(['#fraudeelectoral']);
    expect(matchKeywords('Denuncien el fraude electoral', ['#FraudeElectoral'])).toEqual([]);
    expect(matchKeywords('Denuncien el #FraudeElectoral2027', ['#FraudeElectoral'])).toEqual([]);
  });

  it('returns each configured keyword once and skips blank ones', () => {
    expect(matchKeywords('Paz y paz y más paz', ['Paz', 'Paz', 'guerra', '', '  ', '#'])).toEqual(['Paz']);
    expect(matchKeywords('Paz', [])).toEqual([]);
  });

  it('treats keyword punctuation literally and ignores URLs', () => {
    expect(matchKeywords('El M-19 firmó en 1990', ['M-19', 'a.b'])).toEqual(['M-19']);
    expect(matchKeywords('vea axb', ['a.b'])).toEqual([]);
    expect(matchKeywords('Más en https://paz.example.co/paz', ['paz'])).toEqual([]);
  });
});

describe('normaliseForSearch', () => {
  it('lower-cases and folds accents and ñ', () => {
    expect(normaliseForSearch('Éxito en NARIÑO, Ñandú, pingüino')).toBe('exito en narino, nandu, pinguino');
  });
});
