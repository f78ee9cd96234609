/** HTTP ceiling: a bare Fastify server, one route answering a small JSON object. Env: PORT. */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ status: 'ok', service: 'bench', version: 1 }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
