/** Baseline for information: node:http alone answering the same JSON, the ceiling of this machine. */
import http from 'node:http';

const result = { status: 'ok', service: 'comando', version: '1.0' };
http
  .createServer((_request, response) => {
    // Serialised per request, as a framework does, so only the framework's own cost is missing.
    const payload = JSON.stringify(result);
    response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(payload) });
    response.end(payload);
  })
  .listen(Number(process.env.PORT ?? 3101), process.env.HOST ?? '127.0.0.1');
process.once('SIGTERM', () => process.exit(0));
