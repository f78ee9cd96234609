/**
 * Database ceiling: a bare Fastify route doing one indexed query,
 * `select id, email from users where id = $1`, through a `pg` pool of the
 * server's size (10) on the bench database — or, without DATABASE_URL, on an
 * in-memory PGlite holding a users table of the same shape.
 * Env: PORT, DATABASE_URL (optional).
 */
import { PGlite } from '@electric-sql/pglite';
import Fastify from 'fastify';
import pg from 'pg';

const SQL = 'select id, email from users where id = $1';
type Query = (id: number) => Promise<Array<{ id: number; email: string }>>;

async function openQuery(): Promise<Query> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    return async (id) => (await pool.query<{ id: number; email: string }>(SQL, [id])).rows;
  }
  const db = await PGlite.create();
  await db.exec(`create table users (id integer primary key, email text not null);
    insert into users select g, 'user-' || g || '@example.org' from generate_series(1, 10000) g;`);
  return async (id) => (await db.query<{ id: number; email: string }>(SQL, [id])).rows;
}

const query = await openQuery();
const app = Fastify({ logger: false });
app.get('/health', async () => ({ status: 'ok' }));
app.get<{ Params: { id: string } }>('/user/:id', async (request, reply) => {
  const rows = await query(Number(request.params.id));
  if (rows.length === 0) return reply.code(404).send({ status: 404 });
  return rows[0];
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
