export default function KMeans() {
  return <main className="page">KMeans</main>;
}
