#!/usr/bin/env node
// Runs the CLI from TypeScript source through tsx, so `npm ci` alone is enough to use `paygate`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
