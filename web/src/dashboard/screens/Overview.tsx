/** PLACEHOLDER: web-screens' Overview screen replaces this file at merge. */
export function Overview() {
  return <h1>Overview</h1>;
}
