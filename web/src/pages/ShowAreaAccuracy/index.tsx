export default function ShowAreaAccuracy() {
  return <main className="page">ShowAreaAccuracy</main>;
}
