export default function ForgotPassword() {
  return <main className="page">ForgotPassword</main>;
}
