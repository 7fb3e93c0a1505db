import { authModule } from '../../src/modules/auth';
import { startTestApp, type TestApp } from '../helpers/app';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({}, { modules: [authModule] });
});
afterAll(() => app.close());

describe('a process stopped as soon as it started', () => {
  // A deploy may stop a process the moment it is up: its Redis connections may still be shaking
  // hands, and the Socket.IO adapter's subscription still unanswered. Any rejection left unhandled
  // there fails this test (and would end a real process with an error instead of a clean stop).
  it('stops cleanly, again and again', async () => {
    for (let attempt = 0; attempt < 4; attempt++) {
      const started = await app.sibling();
      await started.runtime.stop();
    }
  });
});
