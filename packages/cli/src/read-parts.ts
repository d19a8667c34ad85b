// The reads alone, over the store and who is live (shop list, inbox, log, workers): Context loads
// this module when a command asks only to read.
import { nodeReadPorts, readOperations } from '@shop/core';

export { nodeReadPorts, readOperations };
