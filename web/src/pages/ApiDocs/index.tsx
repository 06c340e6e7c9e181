export default function ApiDocs() {
  return <main className="page">ApiDocs</main>;
}
