/**
 * OPERATIONS.md promises that every command in it is one the rehearsal ran. This reads the commands of its `sh` code
 * blocks and finds each in the rehearsal's `<dir>/commands.log`, with the run's paths mapped back to the installed
 * ones (`<dir>/etc` is /etc/paygate …), a `<placeholder>` of the guide matching any word, and a `--json` the
 * rehearsal adds to read the answer ignored. The commands the rehearsal cannot run on this machine are listed in
 * EXCEPTIONS, each with its reason.
 */

/** Commands of the guide the rehearsal does not run, by their first words, and why. */
export const EXCEPTIONS: { prefix: string; reason: string }[] = [
  { prefix: 'paygate()', reason: 'the shell function that gives `paygate` the units’ environment (ctx.run does that)' },
  { prefix: 'DATABASE_URL_FILE=', reason: 'the body of that shell function' },
  { prefix: 'PAYGATE_OPTION_SECRET_FILE=', reason: 'the body of that shell function' },
  { prefix: 'PAYGATE_DEPOSIT_SEED_FILE=', reason: 'the body of that shell function' },
  {
    prefix: 'git clone',
    reason: 'the full form clones and runs deploy/install.sh (release.ts) outside ctx.run; the short form compiles',
  },
  { prefix: 'cd /opt/paygate', reason: 'part of the clone above' },
  { prefix: 'git checkout', reason: 'part of the clone above (release.ts clones the tag or HEAD)' },
  {
    prefix: 'nginx -t',
    reason: 'run by test/deploy/deploy.nginx.config.test.ts on the shipped files; the rehearsal starts nginx on them',
  },
  { prefix: 'deploy/install.sh', reason: 'as above: the full form only, not through ctx.run' },
  {
    prefix: 'systemctl',
    reason: 'systemd is not PID 1 here: the units’ command lines run as plain processes (units.ts, fleet.ts)',
  },
  { prefix: 'cp deploy/', reason: 'the rehearsal reads deploy/’s files in place (units.ts, nginx.ts)' },
  { prefix: 'printf ', reason: 'the rehearsal writes the secrets with node (deployment.ts), the same formats' },
  { prefix: 'openssl rand', reason: 'as above' },
  { prefix: ': > ', reason: 'as above (the empty option-secret-previous file)' },
  { prefix: 'paygate admin new-deposit-seed', reason: 'as above: newMnemonic(), what the command prints' },
  { prefix: 'node server/bin/paygate.js migrate', reason: 'run as `paygate migrate` (the same bin)' },
];

/** The commands of the guide's `sh` blocks: comments dropped, continued lines joined, `a && b` split. */
export function guideCommands(markdown: string): string[] {
  const out: string[] = [];
  for (const block of markdown.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const joined = block[1]!.replace(/\\\n\s*/g, ' ');
    for (const raw of joined.split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').trim();
      if (line === '' || line.startsWith('#')) continue;
      for (const part of line.split(/\s+&&\s+/)) out.push(part.trim());
    }
  }
  return out;
}

/** A line of commands.log as the guide writes it: the run's directories replaced by the installed paths. */
export function installedForm(line: string, dir: string): string {
  return line
    .replaceAll(`${dir}/etc`, '/etc/paygate')
    .replaceAll(`${dir}/var`, '/var/lib/paygate')
    .replaceAll(`${dir}/backups`, '/var/backups/paygate')
    .replaceAll(`${dir}/release`, '/opt/paygate')
    .replace(/ --json$/, '')
    .trim();
}

function pattern(command: string): RegExp {
  const parts = command
    .split(/(<[^>]+>)/)
    .map((p) => (/^<[^>]+>$/.test(p) ? '\\S+' : p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${parts.join('')}$`);
}

/** The guide's commands that the log does not hold and no exception covers. */
export function unrunCommands(markdown: string, log: string, dir: string): string[] {
  const ran = log
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => installedForm(l, dir));
  return guideCommands(markdown).filter(
    (c) => !EXCEPTIONS.some((e) => c.startsWith(e.prefix)) && !ran.some((r) => pattern(c).test(r)),
  );
}
