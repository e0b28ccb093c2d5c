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
