/** Knowledge the contract suite (and the engine's own tests) put into a guru. */

export const INSTALL_GUIDE = `# Installing Frobnicator

## Requirements

Frobnicator needs Node.js 20 or newer and a C compiler for its native parts.

## Installation

Run the installer from a terminal:

\`\`\`sh
npm install -g frobnicator

# verify the installation
frob --version
\`\`\`

The installer places the \`frob\` command on your PATH.
`;

export const CONFIG_GUIDE = `# Configuring Frobnicator

## The configuration file

Frobnicator reads its settings from frob.toml in the project root. The wibble level sets how aggressively
frobnication happens; it defaults to 3.

## Environment variables

FROB_HOME overrides where caches are kept.
`;

export const COOKING = `# Pancakes

Mix flour, eggs and milk into a smooth batter, then fry thin pancakes in butter.`;

/** 11-character video ids, distinct and in order. */
const videoIds = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(11 - prefix.length, '0')}`);

/** A channel with more uploads than one page of the Data API (50), a playlist, and a channel that never uploaded. */
export const VIDEO_LISTS = {
  channels: [
    { id: 'UCfrobnicator00000000001', handle: 'Frobnicator', videoIds: videoIds('frob', 73) },
    { id: 'UCquietfrob0000000000002', handle: 'quiet.frob', videoIds: [] },
  ],
  playlists: [{ id: 'PLfrobtutorials000000000000000001', videoIds: videoIds('tut', 4) }],
} as const;

/** The Frobnicator guides as one create request: what most engine tests put into their guru. */
export const FROB_GUIDES = {
  text_sources: [
    { name: 'Install guide', content: INSTALL_GUIDE },
    { name: 'Configuration', content: CONFIG_GUIDE },
  ],
};
