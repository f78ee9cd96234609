/**
 * A TCP proxy on 127.0.0.1 that can go silent: while silent it keeps every
 * socket open but forwards nothing in either direction (the bytes are dropped,
 * as by a network that loses packets), and new connections are accepted but
 * never answered. `resume()` forwards again.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface SilentProxy {
  readonly port: number;
  /** Bytes dropped while silent, in both directions. */
  readonly droppedBytes: number;
  silence(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startSilentProxy(target: { host: string; port: number }): Promise<SilentProxy> {
  let silent = false;
  let droppedBytes = 0;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  };
  const forward = (from: Socket, to: Socket) => {
    from.on('data', (chunk: Buffer) => {
      if (silent) droppedBytes += chunk.length;
      else to.write(chunk);
    });
    from.on('close', () => to.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    track(client);
    track(upstream);
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get droppedBytes() { return droppedBytes; },
    silence: () => { silent = true; },
    resume: () => { silent = false; },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
