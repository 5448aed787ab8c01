// PostGraphile v5 (amber preset) serving the bench database on PORT at /graphql: the GraphQL
// anchor of `npm run bench`. Plain JavaScript, so it runs under whichever Node the harness picks.
import { createServer } from 'node:http';
import { postgraphile } from 'postgraphile';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';

const port = Number(process.env.PORT ?? 5678);
const preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [
    makePgService({
      connectionString: process.env.DATABASE_URL,
      schemas: ['public'],
      // The same pool size as our service's default.
      poolConfig: { max: Number(process.env.PG_POOL_MAX ?? 10) },
    }),
  ],
  grafserv: { port, host: '127.0.0.1', graphqlPath: '/graphql', watch: false, graphiql: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = createServer();
server.on('error', (e) => {
  console.error(e);
  process.exit(1);
});
await serv.addTo(server);
await pgl.getSchema();
server.listen(port, '127.0.0.1', () => console.log(`postgraphile ready on http://127.0.0.1:${port}/graphql (node ${process.version})`));

const stop = async () => {
  server.close();
  await pgl.release();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
