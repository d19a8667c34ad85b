// The engine's ports and every operation over them: Context loads this module on first use, so a
// command that never drives or changes a run (help, shop list) pays nothing for it at start-up.
import { nodePorts, shopOperations } from '@shop/core';

export { nodePorts, shopOperations };
