// A TCP proxy on loopback that forwards to a local port, the request bodies at about `bytesPerSecond`: an upload of
// megabytes through it takes seconds, so a lake test can kill a process while a multipart upload is in flight.
import net from 'node:net';

export function throttlingProxy(target: number, bytesPerSecond: number): Promise<net.Server> {
  const server = net.createServer((socket) => {
    const upstream = net.connect(target, '127.0.0.1');
    upstream.pipe(socket);
    socket.on('data', (chunk: Buffer) => {
      socket.pause();
      const ok = upstream.write(chunk);
      setTimeout(
        () => (ok ? socket.resume() : upstream.once('drain', () => socket.resume())),
        (chunk.length / bytesPerSecond) * 1000,
      );
    });
    socket.on('end', () => upstream.end());
    const close = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', close);
    upstream.on('error', close);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
