/**
 * The systemd units of deploy/systemd read as systemd reads them, so that the rehearsal starts each process with the
 * unit's own command line and environment (systemd is not PID 1 here: the processes are plain children). What is
 * honoured: `EnvironmentFile=` (KEY=value lines), `Environment=` (later wins, over the file), `LoadCredential=`
 * (copied into a per-instance credentials directory, `%d`), `ExecStart=`, `WorkingDirectory=`, and the specifiers
 * `%i` (instance) and `%d`. The install paths (/opt/paygate, /etc/paygate, /var/lib/paygate, /usr/bin/node) are
 * mapped into the run's scratch directory. `User=` and the hardening options need systemd itself and are not applied.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface UnitCommand {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

export interface InstallPaths {
  /** Where /opt/paygate is (the release). */
  release: string;
  /** Where /etc/paygate is (paygate.env, secrets/, chains.json). */
  etc: string;
  /** Where /var/lib/paygate is. */
  state: string;
  /** Per-instance credential directories are made under this one. */
  credentials: string;
  node: string;
}

/** The `[Service]` section's assignments, in order (a key may repeat). */
export function serviceEntries(text: string): [string, string][] {
  const out: [string, string][] = [];
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    const eq = line.indexOf('=');
    if (section === 'Service' && eq > 0) out.push([line.slice(0, eq).trim(), line.slice(eq + 1).trim()]);
  }
  return out;
}

/** Splits a systemd value into words (double quotes group; no other shell syntax is used by the units). */
function words(value: string): string[] {
  return [...value.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

/** KEY=value lines of an EnvironmentFile (comments and blanks skipped, surrounding quotes removed). */
export function envFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    env[line.slice(0, eq).trim()] = line
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return env;
}

function mapPath(value: string, paths: InstallPaths): string {
  return value
    .replaceAll('/opt/paygate', paths.release)
    .replaceAll('/etc/paygate', paths.etc)
    .replaceAll('/var/lib/paygate', paths.state)
    .replace(/^\/usr\/bin\/node$/, paths.node);
}

/**
 * The process a unit instance runs: `unitFile` is e.g. deploy/systemd/paygate-api@.service, `instance` what follows
 * the `@` (the API's port, the worker's number).
 */
export function unitCommand(unitFile: string, instance: string, paths: InstallPaths): UnitCommand {
  const entries = serviceEntries(readFileSync(unitFile, 'utf8'));
  const credDir = join(paths.credentials, `${unitFile.split('/').pop()!.replace('@.service', '')}@${instance}`);
  mkdirSync(credDir, { recursive: true, mode: 0o700 });
  const spec = (v: string) => mapPath(v.replaceAll('%i', instance).replaceAll('%d', credDir), paths);
  const env: Record<string, string> = {};
  let exec: string[] | null = null;
  let cwd = paths.release;
  for (const [key, value] of entries) {
    switch (key) {
      case 'EnvironmentFile':
        for (const [k, v] of Object.entries(envFile(readFileSync(spec(value.replace(/^-/, '')), 'utf8'))))
          env[k] = mapPath(v, paths);
        break;
      case 'Environment':
        for (const word of words(value)) {
          const eq = word.indexOf('=');
          env[word.slice(0, eq)] = spec(word.slice(eq + 1));
        }
        break;
      case 'LoadCredential': {
        const colon = value.indexOf(':');
        copyFileSync(spec(value.slice(colon + 1)), join(credDir, value.slice(0, colon)));
        break;
      }
      case 'ExecStart':
        exec = words(value).map(spec);
        break;
      case 'WorkingDirectory':
        cwd = spec(value);
        break;
    }
  }
  if (!exec) throw new Error(`${unitFile}: no ExecStart`);
  // systemd hands the credentials directory over in this variable too.
  env.CREDENTIALS_DIRECTORY = credDir;
  return { command: exec[0]!, args: exec.slice(1), cwd, env };
}
