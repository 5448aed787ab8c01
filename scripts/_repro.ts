import { startTestServer, tokenFor, call } from '../test/helpers.ts';
const t = await startTestServer();
const token = await tokenFor(t, { email: 'a@b.co', company: 'A' });
const q = 'query Fuzz { company { id  email  vatNumber  a3: registrationNumber  street2  bic  emailTemplates { invoice { subject  } quote { subject  } creditNote { subject  body  } reminder { subject  } } createdAt  } }';
for (const vars of [{ x: 'a\u0000b' }, {}]) {
  const r = await call(t, 'POST', '/api/graphql', { token, body: { query: q, variables: vars }, contentType: 'application/json' });
  console.log(r.status, r.text.slice(0, 600));
}
await t.close();
process.exit(0);
