/**
 * The API and worker processes, each started from its systemd unit (units.ts) as a plain child process, with its
 * output in `<dir>/logs/<unit>@<instance>.log`. A stop is SIGTERM (the units' KillSignal) and a wait for the exit,
 * bounded by the units' TimeoutStopSec, after which systemd would kill: so does this.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../../test/helpers/wait.js';
import { unitCommand, type InstallPaths } from './units.js';

const STOP_TIMEOUT_MS = 35_000;
const READY_MS = 90_000;

export interface Instance {
  unit: 'paygate-api' | 'paygate-worker';
  instance: string;
  /** The API's port, or the worker's metrics port. */
  port: number;
  child: ChildProcess | null;
  release: string;
}

export class Fleet {
  readonly instances: Instance[] = [];
  constructor(
    private readonly repo: string,
    private paths: InstallPaths,
    private readonly metricsToken: string,
    private readonly logDir: string,
  ) {
    mkdirSync(logDir, { recursive: true });
  }

  get apis(): Instance[] {
    return this.instances.filter((i) => i.unit === 'paygate-api');
  }

  get workers(): Instance[] {
    return this.instances.filter((i) => i.unit === 'paygate-worker');
  }

  /** The release later starts use (an upgrade rolls each instance onto it with `restart`). */
  useRelease(release: string): void {
    this.paths = { ...this.paths, release };
  }

  add(unit: Instance['unit'], instance: string, port: number): Instance {
    const i: Instance = { unit, instance, port, child: null, release: this.paths.release };
    this.instances.push(i);
    return i;
  }

  async start(i: Instance, extraEnv: Record<string, string> = {}): Promise<void> {
    const cmd = unitCommand(join(this.repo, `deploy/systemd/${i.unit}@.service`), i.instance, this.paths);
    // The worker unit's metrics port is 940<instance>; here every port is a free one, so two runs never collide.
    const env = { ...cmd.env, ...(i.unit === 'paygate-worker' ? { METRICS_PORT: String(i.port) } : {}), ...extraEnv };
    const log = createWriteStream(join(this.logDir, `${i.unit}@${i.instance}.log`), { flags: 'a' });
    const child = spawn(cmd.command, cmd.args, {
      cwd: cmd.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    i.child = child;
    i.release = this.paths.release;
    await eventually(
      `${i.unit}@${i.instance} ready`,
      async () => {
        if (child.exitCode !== null) throw new Error(`${i.unit}@${i.instance} exited ${child.exitCode}; see its log`);
        return this.ready(i);
      },
      { timeoutMs: READY_MS, intervalMs: 100 },
    );
  }

  /** API: /readyz answers 200. Worker: its /metrics answers (it listens once it takes jobs). */
  async ready(i: Instance): Promise<boolean> {
    const path = i.unit === 'paygate-api' ? '/readyz' : '/metrics';
    try {
      const res = await fetch(`http://127.0.0.1:${i.port}${path}`, {
        headers: { Authorization: `Bearer ${this.metricsToken}` },
        signal: AbortSignal.timeout(2000),
      });
      await res.arrayBuffer();
      return res.status === 200;
    } catch {
      return false;
    }
  }

  /** The checks an API's /readyz names as failing ([] when it answers 200; ['no answer'] when it does not answer). */
  async failingChecks(i: Instance): Promise<string[]> {
    try {
      const res = await fetch(`http://127.0.0.1:${i.port}/readyz`, { signal: AbortSignal.timeout(3000) });
      const body = (await res.json()) as { checks?: Record<string, { status: string }> };
      if (res.status === 200) return [];
      const failing = Object.entries(body.checks ?? {}).filter(([, c]) => c.status === 'failing');
      return failing.length ? failing.map(([name]) => name) : [`status ${res.status}`];
    } catch {
      return ['no answer'];
    }
  }

  async stop(i: Instance): Promise<number | null> {
    const child = i.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    const exited = once(child, 'exit') as Promise<[number | null]>;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    const [code] = await exited;
    clearTimeout(timer);
    return code;
  }

  async restart(i: Instance, extraEnv: Record<string, string> = {}): Promise<void> {
    await this.stop(i);
    await this.start(i, extraEnv);
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.instances.map((i) => this.stop(i)));
  }
}
