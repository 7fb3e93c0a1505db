/** What the social screen says about why an alert fired, from each kind's details, without a browser. */
import { alertReasons } from '../../web/console/social/reasons';

describe('alertReasons', () => {
  it('says a spike against its baseline, by engagement or by rate', () => {
    expect(alertReasons('engagement_spike', { measure: 'engagement', value: 6000, baselineMean: 124, baselinePosts: 10, zScore: 671.09 })).toEqual([
      'Interacción de 6.000 frente a un promedio de 124 en 10 publicaciones anteriores',
      '671,09 desviaciones estándar sobre el promedio',
    ]);
    // The ratio method has no z-score: only the comparison is said.
    expect(alertReasons('engagement_spike', { measure: 'engagementRate', value: 1.25, baselineMean: 0.5, baselinePosts: 8, zScore: null })).toEqual([
      'Tasa de interacción de 1,25 % frente a un promedio de 0,5 % en 8 publicaciones anteriores',
    ]);
  });

  it('says the keywords matched, the follower change and the share of negative posts', () => {
    expect(alertReasons('keyword', { matched: ['reforma tributaria', '(nuestro candidato)'], excerpt: 'No a la reforma' })).toEqual([
      'Menciona: reforma tributaria, (nuestro candidato)',
      '«No a la reforma»',
    ]);
    expect(alertReasons('follower_change', { direction: 'surge', percent: 10, followers: 11_000, referenceFollowers: 10_000 })).toEqual(['De 10.000 a 11.000 seguidores (10 %)']);
    expect(alertReasons('negative_sentiment', { posts: 8, negative: 5, threshold: 0.4 })).toEqual(['5 de 8 publicaciones que nos mencionan son negativas (umbral 40 %)']);
  });

  it('quotes a new post and says nothing it does not know', () => {
    expect(alertReasons('new_post', { platform: 'tiktok', excerpt: 'Anuncio de campaña' })).toEqual(['«Anuncio de campaña»']);
    expect(alertReasons('new_post', { platform: 'tiktok', excerpt: '' })).toEqual([]);
    expect(alertReasons('keyword', {})).toEqual([]);
  });
});
