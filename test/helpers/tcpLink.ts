/**
 * A TCP link to a real server (the run's PostgreSQL) that a test can cut and restore on the same port: cut destroys
 * every socket and closes the port, so clients see what they see when PostgreSQL goes down (connections reset, new
 * ones refused), and restore listens again. Real sockets and the real server on the other side: no fake answers.
 */
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

export class TcpLink {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  /** While frozen, nothing is passed on in either direction: a server that stopped answering (until `cut`). */
  private frozen = false;
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  /** An open link to the server of `url` (postgres://…); `urlThrough` gives the URL that goes through it. */
  static async openTo(url: string): Promise<TcpLink> {
    const u = new URL(url);
    const link = new TcpLink({ host: u.hostname, port: Number(u.port) });
    await link.open();
    return link;
  }

  /** A URL of the target's (postgres://…) with its port replaced by the link's. */
  static urlThrough(url: string, link: TcpLink): string {
    const u = new URL(url);
    u.port = String(link.port);
    return u.toString();
  }

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => {
          this.sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      // By hand rather than pipe(), so that freeze() can hold every byte, of old and new connections alike.
      const pass = (from: Socket, to: Socket) =>
        from.on('data', (chunk: Buffer) => void (this.frozen || to.write(chunk)));
      pass(client, upstream);
      pass(upstream, client);
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /** Stops passing bytes on, without closing anything: requests sent now wait for an answer that never comes. */
  freeze(): void {
    this.frozen = true;
  }

  async cut(): Promise<void> {
    this.frozen = false;
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}
