export default function AboutUs() {
  return <main className="page">AboutUs</main>;
}
