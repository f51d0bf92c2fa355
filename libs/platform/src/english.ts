/**
 * `word` after its indefinite article: "an active", "a pending", "an unspecified". Messages
 * interpolate state and category names that come from code ("A ${status} connection …"), so a
 * fixed "a" reads wrong for every name that starts with a vowel. The article follows the first
 * letter, which is right for those names (plain lower-case words, none pronounced against its
 * spelling as "unit" or "hour" are); a message about other words writes its article by hand.
 */
export function withArticle(word: string, capitalised = false): string {
  const article = /^[aeiou]/i.test(word) ? 'an' : 'a';
  return `${capitalised ? article[0].toUpperCase() + article.slice(1) : article} ${word}`;
}
