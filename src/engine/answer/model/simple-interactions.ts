/**
 * Simple interactions ("hi", "thanks", "bye") recognised without a model, in
 * English, German, French and Spanish: a message made only of such words gets
 * a short reply in its language, with no retrieval and nothing to vote on.
 * Anything more ("hi, how do I install it?") is a question.
 */

type Kind = 'greeting' | 'thanks' | 'farewell';
type Language = 'en' | 'de' | 'fr' | 'es';

/** Each phrase (lower case, without punctuation), its kind and language. */
const PHRASES: readonly (readonly [string, Kind, Language])[] = [
  ['hi', 'greeting', 'en'],
  ['hello', 'greeting', 'en'],
  ['hey', 'greeting', 'en'],
  ['hiya', 'greeting', 'en'],
  ['good morning', 'greeting', 'en'],
  ['good afternoon', 'greeting', 'en'],
  ['good evening', 'greeting', 'en'],
  ['hallo', 'greeting', 'de'],
  ['guten morgen', 'greeting', 'de'],
  ['guten tag', 'greeting', 'de'],
  ['guten abend', 'greeting', 'de'],
  ['moin', 'greeting', 'de'],
  ['servus', 'greeting', 'de'],
  ['bonjour', 'greeting', 'fr'],
  ['bonsoir', 'greeting', 'fr'],
  ['salut', 'greeting', 'fr'],
  ['hola', 'greeting', 'es'],
  ['buenos días', 'greeting', 'es'],
  ['buenos dias', 'greeting', 'es'],
  ['buenas tardes', 'greeting', 'es'],
  ['buenas noches', 'greeting', 'es'],
  ['thanks', 'thanks', 'en'],
  ['thank you', 'thanks', 'en'],
  ['thx', 'thanks', 'en'],
  ['ty', 'thanks', 'en'],
  ['cheers', 'thanks', 'en'],
  ['danke', 'thanks', 'de'],
  ['vielen dank', 'thanks', 'de'],
  ['danke schön', 'thanks', 'de'],
  ['merci', 'thanks', 'fr'],
  ['merci beaucoup', 'thanks', 'fr'],
  ['gracias', 'thanks', 'es'],
  ['muchas gracias', 'thanks', 'es'],
  ['bye', 'farewell', 'en'],
  ['goodbye', 'farewell', 'en'],
  ['bye bye', 'farewell', 'en'],
  ['see you', 'farewell', 'en'],
  ['tschüss', 'farewell', 'de'],
  ['tschüs', 'farewell', 'de'],
  ['auf wiedersehen', 'farewell', 'de'],
  ['au revoir', 'farewell', 'fr'],
  ['à bientôt', 'farewell', 'fr'],
  ['adiós', 'farewell', 'es'],
  ['adios', 'farewell', 'es'],
  ['hasta luego', 'farewell', 'es'],
];

/** Words that may come with them ("hi there", "thanks a lot", "ok, thank you so much"). */
const FILLERS = new Set(['there', 'all', 'a', 'lot', 'so', 'much', 'very', 'ok', 'okay', 'great', 'again', 'and', 'guru', 'für', 'alles', 'bien', 'et', 'y', 'todo']);

const REPLIES: Readonly<Record<Kind, Readonly<Record<Language, (guru: string) => string>>>> = {
  greeting: {
    en: (guru) => `Hello! Ask me anything about ${guru}.\n`,
    de: (guru) => `Hallo! Fragen Sie mich alles zu ${guru}.\n`,
    fr: (guru) => `Bonjour ! Posez-moi vos questions sur ${guru}.\n`,
    es: (guru) => `¡Hola! Pregúntame lo que quieras sobre ${guru}.\n`,
  },
  thanks: {
    en: () => "You're welcome! Ask me anything else whenever you like.\n",
    de: () => 'Gern geschehen! Fragen Sie jederzeit gern weiter.\n',
    fr: () => "Avec plaisir ! N'hésitez pas si vous avez d'autres questions.\n",
    es: () => '¡De nada! Pregúntame lo que necesites.\n',
  },
  farewell: {
    en: () => 'Goodbye! Come back any time.\n',
    de: () => 'Auf Wiedersehen! Bis zum nächsten Mal.\n',
    fr: () => 'Au revoir ! À bientôt.\n',
    es: () => '¡Adiós! Vuelve cuando quieras.\n',
  },
};

/** Longest message read as a simple interaction, in words. */
const MAX_WORDS = 6;

/** The short reply to a simple interaction; undefined for anything else. */
export function simpleReply(message: string, guruName: string): string | undefined {
  const words = message.toLowerCase().normalize('NFC').match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0 || words.length > MAX_WORDS) return undefined;
  let found: { kind: Kind; language: Language } | undefined;
  for (let i = 0; i < words.length; ) {
    const phrase = PHRASES.filter(([text]) => words.slice(i, i + text.split(' ').length).join(' ') === text).sort(
      (a, b) => b[0].length - a[0].length,
    )[0];
    if (phrase) {
      found ??= { kind: phrase[1], language: phrase[2] };
      i += phrase[0].split(' ').length;
    } else if (FILLERS.has(words[i] as string)) i += 1;
    else return undefined;
  }
  return found && REPLIES[found.kind][found.language](guruName);
}
