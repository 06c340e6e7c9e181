export default function Dashboard() {
  return <main className="page">Dashboard</main>;
}
