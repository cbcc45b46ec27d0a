/** What a screen shows a role that may not use it (the server refuses the operations anyway). */
export function RoleNotice(props: { role: string; needs: string }) {
  return (
    <p class="banner info" role="note">
      Your role on this merchant is <strong>{props.role}</strong>. {props.needs}
    </p>
  );
}
