/** A short status word in a coloured pill; the colour repeats the word, it never replaces it. */
export function Badge(props: { tone?: 'neutral' | 'good' | 'warn' | 'bad' | 'info'; children: string }) {
  return <span class={`badge ${props.tone ?? 'neutral'}`}>{props.children}</span>;
}
