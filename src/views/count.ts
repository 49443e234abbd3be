/**
 * "1 post", "3 posts": a number with its noun, for the sentences pages and tool answers say to people.
 */
const ENGLISH = new Intl.PluralRules('en-US');

export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n.toLocaleString('en-US')} ${ENGLISH.select(n) === 'one' ? singular : plural}`;
}
