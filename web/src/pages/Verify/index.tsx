export default function Verify() {
  return <main className="page">Verify</main>;
}
