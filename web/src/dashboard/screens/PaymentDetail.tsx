/** PLACEHOLDER: web-screens' PaymentDetail screen replaces this file at merge. */
export function PaymentDetail(props: { paymentId: string }) {
  return <h1>Payment {props.paymentId}</h1>;
}
