export default function ExportFeature() {
  return <main className="page">ExportFeature</main>;
}
