export default function Crop() {
  return <main className="page">Crop</main>;
}
