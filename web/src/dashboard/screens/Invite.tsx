export function Invite(_props: Record<string, unknown>) {
  return <h1>Invite</h1>;
}
