// serveFolder in a process of its own, for parts that time a client in the bench process: serving
// the pages there would add to the client's own delays. Prints its origin; stops when stdin closes.
//   node folder-server.js FOLDER
import process from 'node:process';
import { serveFolder } from './manual-site.js';

const server = await serveFolder(process.argv[2]);
process.stdout.write(`${server.origin}\n`);
process.stdin.resume();
process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
