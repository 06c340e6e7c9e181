export default function AboutUsMain() {
  return <main className="page">AboutUsMain</main>;
}
