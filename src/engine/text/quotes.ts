/** Block quotes, read one line at a time: what the chunker splits and extractive answers shorten. */

/** A quote line's marker, with the one space after it that belongs to the marker. */
const QUOTE_MARKER = /^ {0,3}> ?/;

/** The line without its quote marker (a line without one is returned as it is). */
export const unquote = (line: string): string => line.replace(QUOTE_MARKER, '');
