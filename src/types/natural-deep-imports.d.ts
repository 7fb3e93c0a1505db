// natural types only its folder index files; these map the single files we import (to skip natural's index, which loads dotenv) onto those types.

declare module 'natural/lib/natural/sentiment/SentimentAnalyzer' {
  import type { Stemmer } from 'natural/lib/natural/stemmers';
  // natural's own declaration asks for its whole Stemmer interface, but the analyser only ever calls stem().
  class SentimentAnalyzer {
    constructor(language: string, stemmer: Pick<Stemmer, 'stem'> | undefined, type: string);
    getSentiment(words: string[]): number;
  }
  export = SentimentAnalyzer;
}

declare module 'natural/lib/natural/stemmers/porter_stemmer_es' {
  import type { Stemmer } from 'natural/lib/natural/stemmers';
  const porterStemmerEs: Stemmer;
  export = porterStemmerEs;
}

declare module 'natural/lib/natural/tokenizers/aggressive_tokenizer_es' {
  import { AggressiveTokenizerEs } from 'natural/lib/natural/tokenizers';
  export = AggressiveTokenizerEs;
}
