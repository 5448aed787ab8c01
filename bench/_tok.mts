import { openDatabase } from '../server/db.ts';
import { tokenCreate } from '../server/commands.ts';
const d = await openDatabase({ databaseUrl: process.env.DATABASE_URL, maxConnections: 1 });
process.stdout.write(await tokenCreate({ db: d.db }, { email: 'bench@example.com', company: 'Bench Co', name: 'x' + Date.now() }));
await d.close();
