/**
 * Text colours dark enough for WCAG AA on their light badge (axe checks every screen); the words
 * always say the same as the colour.
 */
export const TONES = {
  red: { color: 'red', text: '#a51d1d' },
  orange: { color: 'orange', text: '#8f3a00' },
  blue: { color: 'blue', text: '#1a5694' },
  green: { color: 'green', text: '#1b6b2c' },
  gray: { color: 'gray', text: '#40464d' },
} as const;
export type Tone = keyof typeof TONES;
