/**
 * Baseline: bare Koa + @koa/router answering the same JSON as Comando's GET /api/test, with no
 * other middleware. The gap to Comando is the cost of Comando's middleware stack.
 */
import Koa from 'koa';
import Router from '@koa/router';

const app = new Koa();
const router = new Router();
router.get('/api/test', (ctx) => {
  ctx.body = { status: 'ok', service: 'comando', version: '1.0' };
});
app.use(router.routes());
app.listen(Number(process.env.PORT ?? 3100), process.env.HOST ?? '127.0.0.1');
process.once('SIGTERM', () => process.exit(0));
