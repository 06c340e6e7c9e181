export default function RemoveBackground() {
  return <main className="page">RemoveBackground</main>;
}
