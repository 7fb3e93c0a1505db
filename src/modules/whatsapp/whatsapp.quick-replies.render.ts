/**
 * The variables a quick reply may use, filled when it is used in a conversation:
 * `{{nombre}}` the person's name, `{{primer_nombre}}` its first word, `{{barrio}}` their
 * neighbourhood, `{{agente}}` the name of the staff member answering.
 */
export const QUICK_REPLY_VARIABLES = ['nombre', 'primer_nombre', 'barrio', 'agente'] as const;
export type QuickReplyVariable = (typeof QUICK_REPLY_VARIABLES)[number];

const VARIABLE = /\{\{\s*([^}]*?)\s*\}\}/g;

const isVariable = (name: string): name is QuickReplyVariable => (QUICK_REPLY_VARIABLES as readonly string[]).includes(name);

/** The variables a text uses, each once, in order of first use. */
export function variablesOf(text: string): QuickReplyVariable[] {
  return [...new Set([...text.matchAll(VARIABLE)].map((match) => match[1]!).filter(isVariable))];
}

/** What fills the variables; null (or blank) when unknown. */
export type QuickReplyValues = Record<QuickReplyVariable, string | null>;

/**
 * The text with its variables filled; a variable with no value is left empty and named in
 * `missing`, so staff see what to complete before sending.
 */
export function renderQuickReply(text: string, values: QuickReplyValues): { text: string; missing: QuickReplyVariable[] } {
  const missing = new Set<QuickReplyVariable>();
  const rendered = text.replace(VARIABLE, (whole, name: string) => {
    if (!isVariable(name)) return whole;
    const value = values[name]?.trim();
    if (value) return value;
    missing.add(name);
    return '';
  });
  return { text: rendered, missing: [...missing] };
}
