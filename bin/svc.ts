#!/usr/bin/env node
import { VERSION } from '../kernel/version.js';

process.stdout.write(`svc ${VERSION}\n`);
