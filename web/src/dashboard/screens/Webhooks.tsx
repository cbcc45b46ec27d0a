/** PLACEHOLDER: web-screens' Webhooks screen replaces this file at merge. */
export function Webhooks() {
  return <h1>Webhooks</h1>;
}
