// Prints the OpenAPI document as the app generates it (used by .ci/run to lint it with Spectral).
import { buildApp } from '../server/app.ts';
import { loadConfig } from '../server/config.ts';
import { openDatabase } from '../server/db.ts';

const database = await openDatabase({ dataDir: 'memory://' });
const { fastify } = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), database, logger: false });
await fastify.ready();
process.stdout.write(`${JSON.stringify(fastify.swagger(), null, 2)}\n`);
await fastify.close();
await database.close();
