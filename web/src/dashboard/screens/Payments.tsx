/** PLACEHOLDER: web-screens' Payments screen replaces this file at merge. */
export function Payments() {
  return <h1>Payments</h1>;
}
