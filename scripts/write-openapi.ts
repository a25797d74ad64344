// Writes the OpenAPI document the service serves at /api/v1/openapi.json, without starting it:
// `npm run openapi -- openapi.json` (no file: standard output). Then, e.g.,
// `npx redocly lint openapi.json` or `npx openapi-typescript openapi.json -o ledger-api.ts`.
import fs from 'node:fs';
import { openApiDocument } from '../src/api/app';

const text = JSON.stringify(openApiDocument((process.env.PLATFORM_NAME || 'LEDGER').toUpperCase()), null, 2) + '\n';
const out = process.argv[2];
if (out) fs.writeFileSync(out, text);
else process.stdout.write(text);
