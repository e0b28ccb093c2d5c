/** The commands about a guru's end users: their data and their profiles. */
import type { CommandSpec } from './spec.js';

export const END_USER_COMMANDS: readonly CommandSpec[] = [
  {
    name: 'enduser show',
    summary: 'show everything a guru holds about one end user (external_user_id)',
    details: [
      'Questions with their answers and where they were asked, the questions the guru declined and why, conversations, searches, the profile and memories. Every page is read, so the whole record is shown.',
    ],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'external_user_id', required: true },
    ],
    options: { json: { type: 'boolean', description: 'print the data bundle as one JSON object (every page merged)' } },
    audience: 'people',
    examples: ['guru-mcp enduser show docs 5f0c6a52-0d4e-4b8e-9a57-2b1f3c0f7e11'],
    load: () => import('./commands/enduser-show.js'),
  },
  {
    name: 'enduser erase',
    summary: 'erase, for good, everything a guru holds about one end user',
    details: [
      'Deletes their questions and answers, conversations, searches, profile and memories in this guru (other gurus keep theirs), then prints how many of each were deleted.',
      'Asks for confirmation on a terminal; elsewhere (scripts, pipes) --yes is required.',
    ],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'external_user_id', required: true },
    ],
    options: {
      yes: { type: 'boolean', short: 'y', description: 'erase without asking' },
      json: { type: 'boolean', description: 'print {"external_user_id","deleted"}' },
    },
    audience: 'people',
    examples: ['guru-mcp enduser erase docs 5f0c6a52-0d4e-4b8e-9a57-2b1f3c0f7e11 --yes'],
    load: () => import('./commands/enduser-erase.js'),
  },
  {
    name: 'profiles upsert',
    summary: 'create or replace end-user profiles from a JSON file (or - for stdin)',
    details: [
      'The file holds {"users": [{"external_user_id": "...", "memory": {...}}, ...]} (or just the array): at most 1000 users, each memory a JSON object of at most 16 KiB.',
      'One profile per user and guru: sending the same file again changes nothing more. Prints one row per user; exits with 1 when a user failed (the others are saved).',
    ],
    positionals: [
      { name: 'slug', required: true, guru: true },
      { name: 'file', required: true },
    ],
    options: { json: { type: 'boolean', description: 'print the response object' } },
    audience: 'people',
    examples: ['guru-mcp profiles upsert docs profiles.json', 'cat profiles.json | guru-mcp profiles upsert docs -'],
    load: () => import('./commands/profiles-upsert.js'),
  },
];
