import { cpus, totalmem } from 'node:os';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';

/** The date and machine line every result carries. */
export function machineLine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${new Date().toISOString().slice(0, 10)} · ${cpu} · ${cpus().length} cores · ${Math.round(totalmem() / 2 ** 30)} GiB · Node ${process.version}`;
}

/**
 * Replaces (or appends) the section between `<!-- bench:NAME -->` markers in BENCHMARKS.md; with BENCH_WRITE=0, for
 * every benchmark, the file is left alone and the printed table is the only result.
 */
export function writeSection(name: string, markdown: string): void {
  if (process.env.BENCH_WRITE === '0') return;
  const file = 'BENCHMARKS.md';
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const re = new RegExp(`${start}[\\s\\S]*?${end}`);
  writeFileSync(file, re.test(current) ? current.replace(re, block) : `${current.trimEnd()}\n\n${block}\n`);
}
