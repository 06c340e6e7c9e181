export default function Analysis() {
  return <main className="page">Analysis</main>;
}
