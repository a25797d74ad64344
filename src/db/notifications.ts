/**
 * PostgreSQL LISTEN on one channel, on a connection of its own (a pooled one would be handed to
 * queries). After any gap (connection lost, reconnected) `onGap` runs: what was announced meanwhile
 * is unknown, so the listener's owner forgets everything it derived.
 */
import { Client } from 'pg';

export interface Listener {
  close(): Promise<void>;
}

const RECONNECT_MS = 1000;

export function listen(
  databaseUrl: string,
  channel: string,
  onMessage: (payload: string) => void,
  onGap: () => void,
  log: (message: string) => void,
): Listener {
  let client: Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (closed) return;
    const next = new Client({ connectionString: databaseUrl });
    const lost = (why: string) => {
      if (client !== next) return;
      client = null;
      onGap();
      if (!closed) {
        log(`listener on ${channel}: ${why}; reconnecting`);
        timer = setTimeout(connect, RECONNECT_MS);
      }
    };
    next.on('error', (error) => lost(error.message));
    next.on('end', () => lost('connection ended'));
    next.on('notification', (message) => {
      if (message.channel === channel) onMessage(message.payload ?? '');
    });
    client = next;
    try {
      await next.connect();
      await next.query(`listen ${channel}`);
      // Announcements made before LISTEN took effect were missed.
      onGap();
    } catch (error) {
      await next.end().catch(() => undefined);
      lost((error as Error).message);
    }
  };
  void connect();

  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      const current = client;
      client = null;
      await current?.end().catch(() => undefined);
    },
  };
}
