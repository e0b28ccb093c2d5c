/** The Assistant contract, held against the remote adapter talking to our own REST server over loopback HTTP. */
import { describe } from 'vitest';
import { assistantContract } from './assistant-contract.js';
import { deletionContract } from './deletion-contract.js';
import { endUsersContract } from './end-users-contract.js';
import { openRemoteHarness } from './harness.js';

describe('Assistant contract: remote adapter over REST', () => {
  assistantContract(openRemoteHarness);
  describe('deleting data sources', () => {
    deletionContract(openRemoteHarness);
  });
  describe('end users', () => {
    endUsersContract(openRemoteHarness);
  });
});
