export default function ApiKeys() {
  return <main className="page">ApiKeys</main>;
}
