import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { InFlightRequests } from './http/inflight.js';
import { metricsApp } from './http/ops.js';
import { createRuntime, settlesWithin, type Runtime, type RuntimeOptions } from './runtime.js';

export interface RunningServer {
  url: string;
  /** The `/metrics` URL when METRICS_PORT gives it a server of its own, else null. */
  metricsUrl: string | null;
  runtime: Runtime;
  server: Server;
  /**
   * The graceful shutdown: stop accepting, let requests and jobs in flight finish up to PAYGATE_SHUTDOWN_TIMEOUT_MS,
   * interrupt what is left, close the pools. Calling it again returns the same shutdown.
   */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Runs after migrations and before the port opens (the CLI's development bootstrap). */
  beforeListen?: (runtime: Runtime) => Promise<void>;
  /** Close gracefully and exit on SIGTERM and SIGINT (default true; tests that drive close() turn it off). */
  handleSignals?: boolean;
  /** Runtime options besides the configuration (a test's logger or clock). */
  runtime?: Omit<RuntimeOptions, 'config'>;
}

function urlOf(host: string, server: Server): string {
  const { port } = server.address() as AddressInfo;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/** Serves `/metrics` on its own port (METRICS_PORT); `paygate worker` can use it too. */
export async function listenMetrics(runtime: Runtime): Promise<{ url: string; close(): Promise<void> } | null> {
  const { metricsPort, host } = runtime.config;
  if (metricsPort === null) return null;
  const server = createServer(metricsApp(runtime));
  await listen(server, metricsPort, host);
  return { url: `${urlOf(host, server)}/metrics`, close: () => closeServer(server) };
}

/** Binds the API to the configured port; resolves once it is accepting connections. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const runtime = await createRuntime({ processMetrics: true, chains: 'start', ...options.runtime, config });
  const { logger } = runtime;
  const requests = new InFlightRequests();
  const server = createServer(createApp({ runtime, requests }));
  // Our timeout answers first with an ErrorResponse; Node's own limits only catch clients that stall after it.
  server.requestTimeout = config.requestTimeoutMs + 5000;
  server.headersTimeout = Math.min(60_000, server.requestTimeout);
  let metrics: Awaited<ReturnType<typeof listenMetrics>> = null;
  try {
    if (options.beforeListen) await options.beforeListen(runtime);
    await listen(server, config.port, config.host);
    metrics = await listenMetrics(runtime);
    await runtime.startBackground();
  } catch (err) {
    server.close();
    await metrics?.close();
    await runtime.close();
    throw err;
  }
  const url = urlOf(config.host, server);
  logger.info({ url, metrics: metrics?.url, env: config.env }, 'paygate listening');

  const shutdown = async () => {
    const started = performance.now();
    const deadline = config.shutdownTimeoutMs;
    requests.drain();
    const closed = closeServer(server);
    const [requestsDone] = await Promise.all([
      settlesWithin(requests.idle(), deadline),
      runtime.stopBackground(deadline),
    ]);
    if (!requestsDone) {
      logger.warn({ inFlight: requests.count, deadlineMs: deadline }, 'shutdown deadline passed; dropping requests');
    }
    server.closeAllConnections();
    await closed;
    await metrics?.close();
    await runtime.close();
    logger.info({ ms: Math.round(performance.now() - started) }, 'shut down');
  };
  let closing: Promise<void> | null = null;
  const close = () => (closing ??= shutdown());

  if (options.handleSignals ?? true) {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      // An operator who signals twice wants out now, in-flight work or not.
      const force = (again: NodeJS.Signals) => {
        logger.warn({ signal: again }, 'second signal; exiting without waiting');
        process.exit(1);
      };
      process.once('SIGTERM', force);
      process.once('SIGINT', force);
      logger.info({ signal, deadlineMs: config.shutdownTimeoutMs }, 'shutting down');
      close().then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
  return { url, metricsUrl: metrics?.url ?? null, runtime, server, close };
}
