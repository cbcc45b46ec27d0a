import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { createRuntime, type Runtime } from './runtime.js';

export interface RunningServer {
  url: string;
  runtime: Runtime;
  server: Server;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Runs after migrations and before the port opens (the CLI's development bootstrap). */
  beforeListen?: (runtime: Runtime) => Promise<void>;
}

/** Binds the API to the configured port; resolves once it is accepting connections. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const runtime = await createRuntime({ config });
  const { logger } = runtime;
  if (options.beforeListen) {
    try {
      await options.beforeListen(runtime);
    } catch (err) {
      await runtime.close();
      throw err;
    }
  }
  const app = createApp({ runtime });
  await runtime.startBackground();
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, env: config.env }, 'paygate listening');

  const close = async () => {
    await new Promise<void>((resolve, reject) => {
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeIdleConnections();
    });
    await runtime.close();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'shutting down');
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return { url, runtime, server, close };
}
