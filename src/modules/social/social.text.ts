import type SentimentAnalyzer from 'natural/lib/natural/sentiment/SentimentAnalyzer';
import type AggressiveTokenizerEs from 'natural/lib/natural/tokenizers/aggressive_tokenizer_es';
import { onFirstUse } from '../../kernel/on-first-use';

const naturalAnalyser = onFirstUse<typeof SentimentAnalyzer>('natural/lib/natural/sentiment/SentimentAnalyzer');
const naturalStemmerEs = onFirstUse<typeof import('natural/lib/natural/stemmers/porter_stemmer_es')>('natural/lib/natural/stemmers/porter_stemmer_es');
const naturalTokenizerEs = onFirstUse<typeof AggressiveTokenizerEs>('natural/lib/natural/tokenizers/aggressive_tokenizer_es');

/**
 * Offline text features of competitors' posts: lexicon sentiment in Spanish, hashtags, mentions and
 * the configured keywords a post mentions. Pure and synchronous, so the poller can score every post
 * it stores. See docs/social-monitoring.md#sentiment for the method and its measured accuracy.
 */

export type SentimentLabel = 'positive' | 'neutral' | 'negative';

export interface Sentiment {
  /** Mean lexicon polarity per token (AFINN points, about -5…5); 0 when nothing was scored. */
  score: number;
  label: SentimentLabel;
}

// One clearly polar word (AFINN ±2…±4) in a 20–30 token post averages about ±0.1 while stray stem hits in factual posts stay below it, and 0.1 measured best on the labelled set (0.85 against 0.82 at 0–0.075).
export const POSITIVE_SENTIMENT_ABOVE = 0.1;
export const NEGATIVE_SENTIMENT_BELOW = -0.1;

const URL_PATTERN = /(?:https?:\/\/|www\.)\S+/giu;
const HASHTAG_PATTERN = /(?<![\p{L}\p{M}\p{N}_&/])#([\p{L}\p{M}\p{N}_]+)/gu;
/** A handle may hold inner dots (Instagram, TikTok); an `@` glued to a word before it is an e-mail address. */
const MENTION_PATTERN = /(?<![\p{L}\p{M}\p{N}_.@+-])@([\p{L}\p{M}\p{N}_](?:[\p{L}\p{M}\p{N}_.]*[\p{L}\p{M}\p{N}_])?)/gu;
const EMOJI_PATTERN = /\p{Extended_Pictographic}/gu;
/** "buenooo", "noooo": three or more repeats are emphasis, never Spanish spelling (which doubles at most). */
const ELONGATION_PATTERN = /(\p{L})\1{2,}/gu;
/** Negation in natural's analyser lasts to the end of its input, so each clause is scored on its own. */
const CLAUSE_BREAK = /[.,;:!?¡¿…()"“”«»\n]+|\s(?:pero|aunque|sino|sin embargo)\s/u;

interface SentimentEngine {
  analyser: SentimentAnalyzer;
  tokenizer: AggressiveTokenizerEs;
}

let sentimentEngine: SentimentEngine | undefined;

const MAX_CACHED_STEMS = 100_000;
const stems = new Map<string, string>();

// Stemming is nine tenths of the scoring time and posts keep using the same few thousand words.
function cachedStem(word: string): string {
  let stem = stems.get(word);
  if (stem === undefined) {
    if (stems.size >= MAX_CACHED_STEMS) stems.clear();
    stem = naturalStemmerEs().stem(word);
    stems.set(word, stem);
  }
  return stem;
}

// Stemming the lexicon takes ~85 ms, so it is done once, on first use.
function engine(): SentimentEngine {
  if (!sentimentEngine) {
    const Analyser = naturalAnalyser();
    const Tokenizer = naturalTokenizerEs();
    sentimentEngine = { analyser: new Analyser('Spanish', { stem: cachedStem }, 'afinn'), tokenizer: new Tokenizer() };
  }
  return sentimentEngine;
}

/** Lower case, plain letters: "Reforma Tributaria", "reforma tributária" and "REFORMA TRIBUTARIA" compare equal. Folds ñ to n too. */
export function normaliseForSearch(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}+/gu, '');
}

function withoutUrls(text: string): string {
  return text.normalize('NFC').replace(URL_PATTERN, ' ');
}

/** Hashtags without `#`, lower case, each once; a tag needs a letter ("#1" is a ranking, not a tag). */
export function extractHashtags(text: string): string[] {
  const hashtags = new Set<string>();
  for (const [, tag] of withoutUrls(text).matchAll(HASHTAG_PATTERN)) {
    if (tag !== undefined && /\p{L}/u.test(tag)) hashtags.add(tag.toLowerCase());
  }
  return [...hashtags];
}

/** Mentioned handles without `@`, lower case, each once; e-mail addresses are not mentions. */
export function extractMentions(text: string): string[] {
  const handles = new Set<string>();
  for (const [, handle] of withoutUrls(text).matchAll(MENTION_PATTERN)) {
    if (handle !== undefined) handles.add(handle.toLowerCase());
  }
  return [...handles];
}

/** "#NoMásCorrupción" reads as "No Más Corrupción", so the words inside a tag are scored. */
function hashtagWords(tag: string): string {
  return tag
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replaceAll('_', ' ');
}

function prepareForSentiment(text: string): string {
  return (
    withoutUrls(text)
      .replace(MENTION_PATTERN, ' ')
      // A tag stands apart from the sentence around it: a "no" before it must not flip it.
      .replace(HASHTAG_PATTERN, (_hashtag, tag: string) => ` . ${hashtagWords(tag)} . `)
      .toLowerCase()
      .replace(ELONGATION_PATTERN, '$1')
  );
}

// natural's negation list is spelt with accents; "jamas" is how it is often typed.
function restoreNegationAccent(token: string): string {
  return token === 'jamas' ? 'jamás' : token;
}

function labelFor(score: number): SentimentLabel {
  if (score > POSITIVE_SENTIMENT_ABOVE) return 'positive';
  if (score < NEGATIVE_SENTIMENT_BELOW) return 'negative';
  return 'neutral';
}

/**
 * Lexicon sentiment of a Spanish post: natural's AFINN list through its Spanish Porter stemmer
 * (which also makes "corrupcion" and "corrupción" the same word), a negation flipping the rest of
 * its clause, and emojis scored apart from any negation.
 */
export function analyseSentiment(text: string): Sentiment {
  const { analyser, tokenizer } = engine();
  const prepared = prepareForSentiment(text);
  let polaritySum = 0;
  let tokenCount = 0;
  const addTokens = (tokens: string[]) => {
    if (tokens.length === 0) return;
    // natural returns the mean over the tokens it was given; weighting it back keeps every token equal.
    polaritySum += analyser.getSentiment(tokens) * tokens.length;
    tokenCount += tokens.length;
  };
  for (const clause of prepared.split(CLAUSE_BREAK)) addTokens(tokenizer.tokenize(clause).map(restoreNegationAccent));
  addTokens(prepared.match(EMOJI_PATTERN) ?? []);
  const mean = tokenCount === 0 ? 0 : polaritySum / tokenCount;
  return { score: mean, label: labelFor(mean) };
}

interface KeywordMatcher {
  /** The folded tag for a keyword configured as `#tag`, or a phrase's words run together (`#ReformaTributaria`). */
  hashtag: string | null;
  /** Null for a `#tag` keyword, which matches hashtags only. */
  phrase: RegExp | null;
}

const NEVER_MATCHES: KeywordMatcher = { hashtag: null, phrase: null };
const MAX_CACHED_MATCHERS = 5_000;
const keywordMatchers = new Map<string, KeywordMatcher>();

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compileKeyword(keyword: string): KeywordMatcher {
  const trimmed = keyword.trim();
  if (trimmed.startsWith('#')) {
    const tag = normaliseForSearch(trimmed.slice(1));
    return tag === '' ? NEVER_MATCHES : { hashtag: tag, phrase: null };
  }
  const words = normaliseForSearch(trimmed).split(/\s+/u).filter(Boolean);
  if (words.length === 0) return NEVER_MATCHES;
  return {
    hashtag: words.length > 1 ? words.join('') : null,
    phrase: new RegExp(`(?<![\\p{L}\\p{N}_])${words.map(escapeRegExp).join('\\s+')}(?![\\p{L}\\p{N}_])`, 'u'),
  };
}

function keywordMatcher(keyword: string): KeywordMatcher {
  let matcher = keywordMatchers.get(keyword);
  if (matcher === undefined) {
    // Keyword lists are configuration and few, so a full cache means something is feeding it junk: start over rather than grow.
    if (keywordMatchers.size >= MAX_CACHED_MATCHERS) keywordMatchers.clear();
    matcher = compileKeyword(keyword);
    keywordMatchers.set(keyword, matcher);
  }
  return matcher;
}

/**
 * The configured keywords the post mentions, spelt as configured, each once: whole words or phrases,
 * ignoring case and accents ("paz" finds "¡PAZ!" but not "pazguato"); "#tag" finds the hashtag only.
 */
export function matchKeywords(text: string, keywords: readonly string[]): string[] {
  const searchable = normaliseForSearch(withoutUrls(text));
  const hashtags = new Set(extractHashtags(text).map(normaliseForSearch));
  const found = new Set<string>();
  for (const keyword of keywords) {
    if (found.has(keyword)) continue;
    const { hashtag, phrase } = keywordMatcher(keyword);
    if ((hashtag !== null && hashtags.has(hashtag)) || (phrase !== null && phrase.test(searchable))) found.add(keyword);
  }
  return [...found];
}
