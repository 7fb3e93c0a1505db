/**
 * The full-speed part of bench:gotv in its own process: `POST /api/gotv/turnout` with autocannon,
 * one new voter per request, so that the 2,000 socket clients in the parent process (which parse
 * every broadcast) do not slow the load generator down. Reads its job as JSON from argv[2] and
 * prints the Measurement as JSON on its last line.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { measure } from './lib';

interface Job {
  url: string;
  serverPid: number;
  token: string;
  voterIdsFile: string;
  from: number;
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? '{}') as Job;
  const voterIds = JSON.parse(readFileSync(job.voterIdsFile, 'utf8')) as string[];
  let next = job.from;
  const result = await measure({
    url: job.url,
    serverPid: job.serverPid,
    requests: [
      {
        method: 'POST',
        path: '/api/gotv/turnout',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${job.token}` },
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ kind: 'voter', clientReportId: randomUUID(), voterId: voterIds[next++ % voterIds.length] }) }),
      },
    ],
  });
  process.stdout.write(`${JSON.stringify({ ...result, used: next - job.from })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
