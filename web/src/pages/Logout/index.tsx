export default function Logout() {
  return <main className="page">Logout</main>;
}
