export default function TestToken() {
  return <main className="page">TestToken</main>;
}
