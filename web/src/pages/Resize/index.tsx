export default function Resize() {
  return <main className="page">Resize</main>;
}
