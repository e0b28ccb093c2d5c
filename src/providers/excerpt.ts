/**
 * What a provider's error message may quote of a server's reply: one line, bounded, and never the
 * key (servers echo it back, e.g. in a 401's body).
 */
export function excerpt(text: string, secret: string | undefined, chars = 300): string {
  const line = text.replace(/\s+/g, ' ').trim();
  const masked = secret === undefined || secret === '' ? line : line.split(secret).join('***');
  return masked.length > chars ? `${masked.slice(0, chars)}…` : masked;
}
