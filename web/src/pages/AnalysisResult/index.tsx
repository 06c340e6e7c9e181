export default function AnalysisResult() {
  return <main className="page">AnalysisResult</main>;
}
