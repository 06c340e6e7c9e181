export default function ChangePasswordSuccess() {
  return <main className="page">ChangePasswordSuccess</main>;
}
