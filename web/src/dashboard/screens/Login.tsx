export function Login(_props: Record<string, unknown>) {
  return <h1>Login</h1>;
}
