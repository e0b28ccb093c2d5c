// The child process of runIsolated: node child.js MODULE_URL EXPORT OUTPUT_FILE JSON_ARGS
import { writeFileSync } from 'node:fs';
import process from 'node:process';

const [, , moduleUrl, name, output, args] = process.argv;
const run = (await import(moduleUrl))[name];
if (typeof run !== 'function') throw new Error(`${moduleUrl} exports no function ${name}`);
writeFileSync(output, JSON.stringify(await run(...JSON.parse(args))));
