/** How long text takes to say at eSpeak's 165 words a minute, with room for its pauses: [shortest, longest] in seconds. */
export function spokenDurationRange(words: number): readonly [number, number] {
  return [(words / 300) * 60, (words / 80) * 60 + 1];
}
