export default function NewPassword() {
  return <main className="page">NewPassword</main>;
}
