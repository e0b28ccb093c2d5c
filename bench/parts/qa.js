// Part `qa`: questions answered without a language model on real documentation (Debian's
// sqlite3-doc, and the PostgreSQL 15 manual, the Python 3.11 documentation, the Git 2.39 manual, the
// Django 3.2 documentation, the Apache HTTP Server 2.4 manual, the Node.js 18 API documentation,
// the pytest 7.2 documentation and the Sphinx 5.3 documentation as held-out checks); see
// bench/qa/benchmark.js.
import { printQa, runQaPart } from '../qa/benchmark.js';

/** @type {import('../lib/part.js').BenchPart} */
export default {
  name: 'qa',
  run: async () => ({ sets: await runQaPart() }),
  print: (result) => printQa(result.sets),
};
