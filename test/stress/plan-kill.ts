/** When the MCP kill scenario's SIGKILL lands in an advance: a delay after sending it, or after its commit. */
import { watch } from 'node:fs';
import type { McpServerProcess } from './mcp-stdio-client.js';

/**
 * When a round's SIGKILL lands: `afterMs` after the advance is sent, or `afterMs` after its state.json is
 * replaced (the commit), for kills aimed at what follows it: the events, the trace, the next pass's snapshot.
 */
export type KillPoint = { readonly after: 'send' | 'state_write'; readonly afterMs: number };

/** Arms the kill of one advance in `runFolder` (call it just before sending); `cancel` once the call has ended. */
export function planKill(
  server: Pick<McpServerProcess, 'kill'>,
  runFolder: string,
  kill: KillPoint,
): { cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const fire = (): void => {
    timer ??= setTimeout(() => {
      server.kill();
    }, kill.afterMs);
  };
  if (kill.after === 'send') {
    fire();
    return {
      cancel: () => {
        clearTimeout(timer);
      },
    };
  }
  // The engine replaces state.json by a rename into the run folder: inotify reports it as soon as it happens.
  const watcher = watch(runFolder, (_event, name) => {
    if (name === 'state.json') fire();
  });
  return {
    cancel: () => {
      watcher.close();
      clearTimeout(timer);
    },
  };
}
