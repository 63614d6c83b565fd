#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx's loader, so `npm install && npm start` needs no build.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
