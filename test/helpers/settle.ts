import type { Runtime } from '../../src/runtime';

/**
 * Waits until the given processes have nothing left to do: no job waiting or running and no sender
 * draining, in a pass where none of them had to be waited for. A test that asserts something
 * happened once waits for this rather than for a fixed time: a second send, had one been coming,
 * would have come from work this waits out.
 */
export async function settled(processes: readonly { runtime: Runtime }[], timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await Promise.all(processes.map(({ runtime }) => runtime.deps.jobs.idle(Math.max(1, deadline - Date.now()))));
    const waited = await Promise.all(processes.map(({ runtime }) => runtime.deps.local.idle()));
    if (!waited.includes(true)) return;
    if (Date.now() > deadline) throw new Error(`the processes did not settle within ${timeoutMs} ms`);
  }
}
