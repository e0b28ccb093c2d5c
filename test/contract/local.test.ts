/** The Assistant contract, held against the local engine called directly. */
import { describe } from 'vitest';
import { assistantContract } from './assistant-contract.js';
import { deletionContract } from './deletion-contract.js';
import { endUsersContract } from './end-users-contract.js';
import { openLocalHarness } from './harness.js';

describe('Assistant contract: local engine', () => {
  assistantContract(openLocalHarness);
  describe('deleting data sources', () => {
    deletionContract(openLocalHarness);
  });
  describe('end users', () => {
    endUsersContract(openLocalHarness);
  });
});
