export default function Bruise() {
  return <main className="page">Bruise</main>;
}
