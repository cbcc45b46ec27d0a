/**
 * Reading a password for a CLI command without putting it on the command line (where `ps` and the shell history
 * would keep it): from a file (`--password-file`, `-` for stdin), from piped stdin, or typed at a prompt that does
 * not echo.
 */
import { readFile } from 'node:fs/promises';
import type { CliIo } from './common.js';

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
  return text;
}

/** The first line, without its line ending: a file written by `echo` ends with one. */
const firstLine = (text: string) => text.split(/\r?\n/)[0] ?? '';

function prompt(io: CliIo, stdin: NonNullable<CliIo['stdin']>, question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    io.stderr.write(question);
    stdin.setRawMode?.(true);
    stdin.resume();
    let typed = '';
    const done = (err?: Error) => {
      stdin.setRawMode?.(false);
      stdin.pause();
      stdin.removeListener('data', onData);
      io.stderr.write('\n');
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString()) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new Error('cancelled'));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    stdin.on('data', onData);
  });
}

export async function readPassword(io: CliIo, file: string | undefined): Promise<string> {
  const stdin = io.stdin ?? process.stdin;
  if (file !== undefined && file !== '-') return firstLine(await readFile(file, 'utf8'));
  if (file === undefined && stdin.isTTY) return prompt(io, stdin, 'Password (12 to 256 characters): ');
  return firstLine(await readAll(stdin));
}
