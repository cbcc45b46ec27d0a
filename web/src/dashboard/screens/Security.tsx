export function Security(_props: Record<string, unknown>) {
  return <h1>Security</h1>;
}
