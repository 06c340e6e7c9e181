export default function Home() {
  return <main className="page">Home</main>;
}
