export default function ChangePassword() {
  return <main className="page">ChangePassword</main>;
}
