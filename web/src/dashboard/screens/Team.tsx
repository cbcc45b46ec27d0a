export function Team(_props: Record<string, unknown>) {
  return <h1>Team</h1>;
}
