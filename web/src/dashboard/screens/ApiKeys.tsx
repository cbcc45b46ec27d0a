export function ApiKeys(_props: Record<string, unknown>) {
  return <h1>ApiKeys</h1>;
}
