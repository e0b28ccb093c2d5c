/**
 * The Assistant contract, held against the local engine on PostgreSQL: one throwaway server for
 * this file, an empty database for each engine a test opens.
 */
import { describe } from 'vitest';
import { postgresSuite } from '../support/postgres-suite.js';
import { assistantContract } from './assistant-contract.js';
import { deletionContract } from './deletion-contract.js';
import { endUsersContract } from './end-users-contract.js';
import { localHarness } from './harness.js';

const openOnPostgres = localHarness(postgresSuite());

describe('Assistant contract: local engine on PostgreSQL', () => {
  assistantContract(openOnPostgres);
  describe('deleting data sources', () => {
    deletionContract(openOnPostgres);
  });
  describe('end users', () => {
    endUsersContract(openOnPostgres);
  });
});
