#!/usr/bin/env node
// The `ebs-provisioner` command: runs the TypeScript CLI through tsx, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
await main();
